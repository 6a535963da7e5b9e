// A medication's schedule in words: "Twice daily at 08:00 and 20:00", "As needed".
import type { TFunction } from 'i18next';
import type { Frequency, Schedule } from '../api/medicationTypes';
import type { TimeFormat } from '../settings/appSettings';
import { formatTimeOfDay, localeOf } from './format';

/** A list joined the way the language joins one: "a and b", "a, b, and c". */
export function joinList(items: string[], language: string): string {
  return new Intl.ListFormat(localeOf(language), { style: 'long', type: 'conjunction' }).format(items);
}

/** An ISO weekday (1 = Monday … 7 = Sunday) by name in the language. */
export function weekdayName(isoDay: number, language: string, width: 'long' | 'short' = 'long'): string {
  // 1 January 2024 was a Monday.
  const date = new Date(Date.UTC(2024, 0, isoDay));
  return new Intl.DateTimeFormat(localeOf(language), { weekday: width, timeZone: 'UTC' }).format(date);
}

export const ISO_WEEKDAYS = [1, 2, 3, 4, 5, 6, 7] as const;

/** The day of the month a monthly schedule falls on: that of its start date. */
function monthDay(startDate: string): number | null {
  const match = /^\d{4}-\d{2}-(\d{2})$/.exec(startDate);
  return match ? Number(match[1]) : null;
}

export interface ScheduleFormat {
  timeFormat: TimeFormat;
  language: string;
  /** A step's amount in the medication's unit ("40 mg"); the bare number when not given. */
  amount?: (value: number) => string;
}

/** "30 Nov", with the year when it is not this year's. */
export function shortDate(date: string, language: string, today = new Date()): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return date;
  const year = Number(match[1]);
  const moment = Date.UTC(year, Number(match[2]) - 1, Number(match[3]));
  return new Intl.DateTimeFormat(localeOf(language), {
    day: 'numeric',
    month: 'short',
    ...(year === today.getFullYear() ? {} : { year: 'numeric' }),
    timeZone: 'UTC',
  }).format(moment);
}

/** "4 h", "90 min". */
function gapInWords(t: TFunction, minutes: number): string {
  return minutes % 60 === 0 ? t('schedule.gapHours', { count: minutes / 60 }) : t('schedule.gapMinutes', { count: minutes });
}

/**
 * A schedule in words with its rules: "Every 8 hours from 06:00", "Daily at 08:00 · 21 days
 * on, 7 off · Until 30 Nov", "40 mg for 5 days, then 30 mg for 5 days".
 */
export function scheduleInWords(t: TFunction, frequency: Frequency, schedule: Schedule, format: ScheduleFormat): string {
  const parts = [baseInWords(t, frequency, schedule, format)];
  const s = schedule;
  if (frequency === 'as_needed') {
    if (s.max_per_day !== null) parts.push(t('schedule.maxPerDay', { count: s.max_per_day }));
    if (s.min_gap_minutes !== null) parts.push(t('schedule.minGap', { gap: gapInWords(t, s.min_gap_minutes) }));
    return parts.join(' · ');
  }
  if (s.cycle_on_days !== null && s.cycle_off_days !== null) {
    parts.push(t('schedule.cycle', { on: s.cycle_on_days, off: s.cycle_off_days }));
  }
  if (s.clock === 'elapsed' && s.interval_hours === null) parts.push(t('schedule.elapsed'));
  if (s.steps.length > 0) {
    const amount = format.amount ?? ((value: number) => String(value));
    parts.push(
      s.steps.map((step) => t('schedule.step', { amount: amount(step.quantity), count: step.days })).join(t('schedule.then')),
    );
  }
  if (s.end_date !== null) parts.push(t('schedule.until', { date: shortDate(s.end_date, format.language) }));
  return parts.join(' · ');
}

function baseInWords(
  t: TFunction,
  frequency: Frequency,
  schedule: Schedule,
  { timeFormat, language }: ScheduleFormat,
): string {
  if (frequency === 'as_needed') return t('schedule.as_needed');
  const time = (text: string) => formatTimeOfDay(text, timeFormat, language);
  const daily = frequency === 'daily' || frequency === 'twice_daily';
  if (daily && schedule.interval_hours !== null) {
    const first = schedule.times[0] ?? schedule.effective_times[0] ?? '';
    return t('schedule.interval', { count: schedule.interval_hours, time: time(first) });
  }
  const times = joinList(schedule.effective_times.map(time), language);
  if (daily && schedule.every_days !== null) return t('schedule.every_days', { count: schedule.every_days, times });
  switch (frequency) {
    case 'twice_daily':
      return t('schedule.twice_daily', { times });
    case 'weekly': {
      const days = joinList(
        [...schedule.effective_weekdays].sort((a, b) => a - b).map((day) => weekdayName(day, language)),
        language,
      );
      return days === '' ? t('schedule.weekly_any', { times }) : t('schedule.weekly', { days, times });
    }
    case 'monthly': {
      const day = monthDay(schedule.start_date);
      return day === null ? t('schedule.monthly_any', { times }) : t('schedule.monthly', { day, times });
    }
    default:
      return t('schedule.daily', { times });
  }
}

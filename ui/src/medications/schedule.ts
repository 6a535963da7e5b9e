// A medication's schedule in words: "Twice daily at 08:00 and 20:00", "As needed".
import type { TFunction } from '../i18n';
import type { DatedStep, Frequency, Schedule } from '../api/medicationTypes';
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
  /** A calendar date ("YYYY-MM-DD") in words; `shortDate` when not given. */
  date?: (date: string) => string;
}

/** The calendar of a course, as the server counts it: its steps' dates and its last day. */
export interface ScheduleCalendar {
  stages: DatedStep[];
  /** The last day with doses (end date or last step); null when the course has no end. */
  last_day: string | null;
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
export function gapInWords(t: TFunction, minutes: number): string {
  return minutes % 60 === 0 ? t('schedule.gapHours', { count: minutes / 60 }) : t('schedule.gapMinutes', { count: minutes });
}

/**
 * A schedule in words with its rules: "Every 8 hours from 06:00", "Daily at 08:00 · 21 days
 * on, 7 off · Until 30 Nov", "40 mg for 5 days, then 30 mg for 5 days".
 */
export function scheduleInWords(t: TFunction, frequency: Frequency, schedule: Schedule, format: ScheduleFormat): string {
  return scheduleParts(t, frequency, schedule, format, null).join(' · ');
}

/**
 * The whole regimen, one line each, with its dates: "Every 8 hours from 6:00 AM", "At most 3
 * doses in 24 hours", "Nov 1, 2026 to Nov 5, 2026: 40 mg", "From Nov 1, 2026 to Nov 15, 2026".
 */
export function scheduleLines(
  t: TFunction,
  frequency: Frequency,
  schedule: Schedule,
  format: ScheduleFormat,
  calendar: ScheduleCalendar,
): string[] {
  return scheduleParts(t, frequency, schedule, format, calendar);
}

/** The schedule's parts; with a calendar, each step and the course's dates in full. */
function scheduleParts(
  t: TFunction,
  frequency: Frequency,
  schedule: Schedule,
  format: ScheduleFormat,
  calendar: ScheduleCalendar | null,
): string[] {
  const parts = [baseInWords(t, frequency, schedule, format)];
  const s = schedule;
  const date = format.date ?? ((text: string) => shortDate(text, format.language));
  const amount = format.amount ?? ((value: number) => String(value));
  if (frequency === 'as_needed') {
    if (s.max_per_day !== null) parts.push(t('schedule.maxPerDay', { count: s.max_per_day }));
    if (s.min_gap_minutes !== null) parts.push(t('schedule.minGap', { gap: gapInWords(t, s.min_gap_minutes) }));
  } else {
    if (s.cycle_on_days !== null && s.cycle_off_days !== null) {
      parts.push(t('schedule.cycle', { on: s.cycle_on_days, off: s.cycle_off_days }));
    }
    if (s.clock === 'elapsed' && s.interval_hours === null) parts.push(t('schedule.elapsed'));
    if (calendar !== null) {
      for (const stage of calendar.stages) {
        parts.push(
          stage.first_day === stage.last_day
            ? t('schedule.stageDay', { date: date(stage.first_day), amount: amount(stage.quantity) })
            : t('schedule.stage', {
                from: date(stage.first_day),
                to: date(stage.last_day),
                amount: amount(stage.quantity),
              }),
        );
      }
    } else if (s.steps.length > 0) {
      parts.push(
        s.steps.map((step) => t('schedule.step', { amount: amount(step.quantity), count: step.days })).join(t('schedule.then')),
      );
    }
  }
  if (calendar !== null) {
    parts.push(
      calendar.last_day === null
        ? t('schedule.since', { from: date(s.start_date) })
        : t('schedule.course', { from: date(s.start_date), to: date(calendar.last_day) }),
    );
  } else if (frequency !== 'as_needed' && s.end_date !== null) {
    parts.push(t('schedule.until', { date: date(s.end_date) }));
  }
  return parts;
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

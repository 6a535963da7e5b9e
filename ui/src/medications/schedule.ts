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
}

export function scheduleInWords(
  t: TFunction,
  frequency: Frequency,
  schedule: Schedule,
  { timeFormat, language }: ScheduleFormat,
): string {
  if (frequency === 'as_needed') return t('schedule.as_needed');
  const times = joinList(
    schedule.effective_times.map((time) => formatTimeOfDay(time, timeFormat, language)),
    language,
  );
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

// The as-needed limits as the server enforces them: a dose too soon or over the most in 24
// hours is refused (409) unless it is confirmed.
import type { TFunction } from '../i18n';
import { ApiError } from '../api/client';

export type LimitCode = 'dose_too_soon' | 'daily_maximum_reached';

export interface LimitRefusal {
  code: LimitCode;
  /** "HH:MM" in the person's zone, when the server said. */
  time: string | null;
  /** RFC 3339, when the server said. */
  nextAllowedAt: string | null;
}

/** The refusal when `error` is one (looking through wrapped errors), else null. */
export function limitRefusalOf(error: unknown): LimitRefusal | null {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApiError) {
      // Compared as text: a build whose generated codes predate the limits still knows them.
      const code: string | null = current.code;
      if (current.status !== 409 || (code !== 'dose_too_soon' && code !== 'daily_maximum_reached')) return null;
      return {
        code,
        time: /^\d{2}:\d{2}$/.test(current.params.time ?? '') ? (current.params.time ?? null) : null,
        nextAllowedAt: current.params.next_allowed_at ?? null,
      };
    }
    current = current.cause;
  }
  return null;
}

/** The moment a dose is allowed again, when that is still to come; null once it has passed. */
export function laterThanNow(instant: string | null, now: number = Date.now()): Date | null {
  if (instant === null) return null;
  const moment = new Date(instant);
  return Number.isNaN(moment.getTime()) || moment.getTime() <= now ? null : moment;
}

export interface MomentFormat {
  /** The moment's local time of day, as the person writes times. */
  time: (moment: Date) => string;
  /** The moment's local date, as the person writes dates. */
  date: (moment: Date) => string;
}

function sameLocalDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/**
 * When a dose is allowed again, as people say it: "today at 2:30 PM", "tomorrow at
 * 12:00 AM", "on 11/28/2026 at 8:00 AM" (`meds:card.nextAllowedWhen`).
 */
export function allowedWhen(t: TFunction, moment: Date, format: MomentFormat, now: Date = new Date()): string {
  const time = format.time(moment);
  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  if (sameLocalDay(moment, now)) return t('card.nextAllowedWhen.today', { time });
  if (sameLocalDay(moment, tomorrow)) return t('card.nextAllowedWhen.tomorrow', { time });
  return t('card.nextAllowedWhen.later', { time, date: format.date(moment) });
}

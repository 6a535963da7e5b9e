// The as-needed limits as the server enforces them: a dose too soon or over the day's
// maximum is refused (409) unless it is confirmed.
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

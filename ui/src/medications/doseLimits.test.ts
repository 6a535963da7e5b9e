import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { laterThanNow, limitRefusalOf } from './doseLimits';

const refusal = (status: number, code: string, params: Record<string, string> = {}) =>
  new ApiError('refused', status, { success: false, message: 'refused', code, params });

describe('as-needed limits', () => {
  it('knows a refusal of a dose too soon or over the maximum, with its time', () => {
    expect(
      limitRefusalOf(refusal(409, 'dose_too_soon', { time: '14:30', next_allowed_at: '2026-11-23T14:30:00+01:00' })),
    ).toEqual({ code: 'dose_too_soon', time: '14:30', nextAllowedAt: '2026-11-23T14:30:00+01:00' });
    expect(limitRefusalOf(new Error('wrapped', { cause: refusal(409, 'daily_maximum_reached') }))).toEqual({
      code: 'daily_maximum_reached',
      time: null,
      nextAllowedAt: null,
    });
  });

  it('leaves other refusals alone', () => {
    expect(limitRefusalOf(refusal(409, 'reminder_exists'))).toBeNull();
    expect(limitRefusalOf(refusal(400, 'dose_too_soon'))).toBeNull();
    expect(limitRefusalOf(new Error('Network error'))).toBeNull();
  });

  it('shows the next allowed moment only while it is still to come', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(laterThanNow('2026-11-23T12:30:00Z', now)?.toISOString()).toBe('2026-11-23T12:30:00.000Z');
    expect(laterThanNow('2026-11-23T11:59:00Z', now)).toBeNull();
    expect(laterThanNow(null, now)).toBeNull();
    expect(laterThanNow('soon', now)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import i18n from '../i18n';
import { allowedWhen, laterThanNow, limitRefusalOf } from './doseLimits';
import { formatDate, formatTime } from './format';

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

describe('when the next dose is allowed, in words', () => {
  const now = new Date(2026, 10, 26, 21, 15);
  const words = (moment: Date, language = 'en', timeFormat: '12h' | '24h' = '12h') => {
    const t = i18n.getFixedT(language, 'meds');
    const format = {
      time: (d: Date) => formatTime(d, timeFormat, language),
      date: (d: Date) => formatDate(d, language === 'en' ? 'MM/dd/yyyy' : 'dd/MM/yyyy'),
    };
    return t('card.nextAllowed', { when: allowedWhen(t, moment, format, now) });
  };

  it('says tomorrow at midnight rather than a bare 12:00 AM', () => {
    expect(words(new Date(2026, 10, 27, 0, 0))).toBe('The next dose is allowed tomorrow at 12:00 AM');
    expect(words(new Date(2026, 10, 27, 0, 0), 'de', '24h')).toBe('Die nächste Einnahme ist morgen um 00:00 erlaubt');
    expect(words(new Date(2026, 10, 27, 6, 30), 'fr', '24h')).toBe('La prochaine prise est autorisée demain à 06:30');
    expect(words(new Date(2026, 10, 27, 6, 30), 'es', '24h')).toBe(
      'La próxima dosis está permitida mañana a las 06:30',
    );
  });

  it('says today for later today, and the date beyond tomorrow', () => {
    expect(words(new Date(2026, 10, 26, 23, 45))).toBe('The next dose is allowed today at 11:45 PM');
    expect(words(new Date(2026, 10, 28, 8, 0))).toBe('The next dose is allowed on 11/28/2026 at 8:00 AM');
    expect(words(new Date(2026, 10, 28, 8, 0), 'de', '24h')).toBe(
      'Die nächste Einnahme ist am 28/11/2026 um 08:00 erlaubt',
    );
  });

  it('names the 24 hours the maximum counts', () => {
    const t = i18n.getFixedT('en', 'meds');
    expect(t('schedule.maxPerDay', { count: 3 })).toBe('At most 3 doses in 24 hours');
    expect(t('takeAnyway.maximum', { name: 'Ibuprofen', when: 'tomorrow at 6:00 AM' })).toBe(
      'Ibuprofen has reached its most doses in 24 hours. The next dose is allowed tomorrow at 6:00 AM.',
    );
    expect(i18n.getFixedT('de', 'meds')('schedule.maxPerDay', { count: 3 })).toBe('Höchstens 3 Einnahmen in 24 Stunden');
  });
});

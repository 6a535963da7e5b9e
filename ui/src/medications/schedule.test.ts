import { describe, expect, it } from 'vitest';
import type { Frequency, Schedule } from '../api/medicationTypes';
import i18n from '../i18n';
import { SCHEDULE_JSON } from '../test/medications';
import { scheduleInWords } from './schedule';

const schedule = (changes: Partial<Schedule> = {}): Schedule => ({ ...SCHEDULE_JSON, start_date: '2026-11-15', ...changes });

function words(frequency: Frequency, s: Schedule, timeFormat: '12h' | '24h' = '24h', language = 'en') {
  return scheduleInWords(i18n.getFixedT(language, 'meds'), frequency, s, { timeFormat, language });
}

describe('schedule in words', () => {
  it('daily', () => {
    expect(words('daily', schedule())).toBe('Daily at 09:00');
    expect(words('daily', schedule({ effective_times: ['07:30', '13:00', '19:30'] }))).toBe(
      'Daily at 07:30, 13:00, and 19:30',
    );
  });

  it('twice daily', () => {
    expect(words('twice_daily', schedule({ effective_times: ['08:00', '20:00'] }))).toBe(
      'Twice daily at 08:00 and 20:00',
    );
    expect(words('twice_daily', schedule({ effective_times: ['08:00', '20:00'] }), '12h')).toBe(
      'Twice daily at 8:00 AM and 8:00 PM',
    );
  });

  it('weekly', () => {
    expect(words('weekly', schedule({ effective_weekdays: [4, 1] }))).toBe('Weekly on Monday and Thursday at 09:00');
    expect(words('weekly', schedule({ effective_weekdays: [7] }))).toBe('Weekly on Sunday at 09:00');
  });

  it('monthly', () => {
    expect(words('monthly', schedule())).toBe('Monthly on day 15 at 09:00');
  });

  it('as needed', () => {
    expect(words('as_needed', schedule({ effective_times: [] }))).toBe('As needed');
  });

  it('in the other languages', () => {
    const s = schedule({ effective_times: ['08:00', '20:00'], effective_weekdays: [1, 4] });
    expect(words('weekly', s, '24h', 'de')).toBe('Wöchentlich am Montag und Donnerstag um 08:00 und 20:00');
    expect(words('twice_daily', s, '24h', 'fr')).toBe('Deux fois par jour, à 08:00 et 20:00');
    expect(words('weekly', s, '24h', 'es')).toBe('Cada semana: lunes y jueves, a las 08:00 y 20:00');
    expect(words('as_needed', s, '24h', 'de')).toBe('Bei Bedarf');
  });
});

describe('schedule rules in words', () => {
  const amount = (value: number) => `${value} mg`;
  const rulesWords = (frequency: Frequency, s: Schedule, language = 'en') =>
    scheduleInWords(i18n.getFixedT(language, 'meds'), frequency, s, { timeFormat: '24h', language, amount });

  it('every N hours from the first time', () => {
    const s = schedule({ times: ['06:00'], effective_times: ['06:00', '14:00', '22:00'], interval_hours: 8, clock: 'elapsed' });
    expect(rulesWords('daily', s)).toBe('Every 8 hours from 06:00');
    expect(rulesWords('daily', s, 'de')).toBe('Alle 8 Stunden ab 06:00');
  });

  it('every N days, a cycle, an end date and a tapering plan', () => {
    expect(rulesWords('daily', schedule({ every_days: 2 }))).toBe('Every 2 days at 09:00');
    expect(rulesWords('daily', schedule({ cycle_on_days: 21, cycle_off_days: 7 }))).toBe(
      'Daily at 09:00 · 21 days on, 7 off',
    );
    expect(rulesWords('daily', schedule({ end_date: '2020-11-30' }))).toBe('Daily at 09:00 · Until Nov 30, 2020');
    expect(
      rulesWords(
        'daily',
        schedule({
          steps: [
            { days: 5, quantity: 40 },
            { days: 1, quantity: 30 },
          ],
        }),
      ),
    ).toBe('Daily at 09:00 · 40 mg for 5 days, then 30 mg for 1 day');
  });

  it('as needed with its limits', () => {
    expect(rulesWords('as_needed', schedule({ max_per_day: 4, min_gap_minutes: 240 }))).toBe(
      'As needed · At most 4 doses in 24 hours · At least 4 h apart',
    );
    expect(rulesWords('as_needed', schedule({ min_gap_minutes: 90 }))).toBe('As needed · At least 90 min apart');
  });
});

import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatPlainDate, formatTimeOfDay, usesTwentyFourHours } from './format';

// Intl writes "8:00 AM" with a narrow no-break space in current engines.
const spaced = (text: string) => text.replace(/\u202f|\u00a0/g, ' ');

describe('dates and times as the language writes them (no format chosen)', () => {
  it.each([
    ['en', '8:05 AM', '8:30 PM', '11/26/2026'],
    ['de', '08:05', '20:30', '26.11.2026'],
    ['fr', '08:05', '20:30', '26/11/2026'],
    ['es', '08:05', '20:30', '26/11/2026'],
  ])('%s: %s, %s, %s', (language, morning, evening, date) => {
    expect(spaced(formatTimeOfDay('08:05', 'auto', language))).toBe(morning);
    expect(spaced(formatTimeOfDay('20:30', 'auto', language))).toBe(evening);
    expect(formatPlainDate('2026-11-26', 'auto', language)).toBe(date);
    expect(formatDate(new Date(2026, 10, 26, 9), 'auto', language)).toBe(date);
  });

  it('knows which languages count hours to 24', () => {
    expect(['en', 'de', 'fr', 'es'].map(usesTwentyFourHours)).toEqual([false, true, true, true]);
  });

  it('writes a moment with both', () => {
    const instant = new Date(2026, 10, 26, 20, 5).toISOString();
    expect(formatDateTime(instant, { dateFormat: 'auto', timeFormat: 'auto' }, 'de')).toBe('26.11.2026 20:05');
    expect(spaced(formatDateTime(instant, { dateFormat: 'auto', timeFormat: 'auto' }, 'en'))).toBe('11/26/2026 8:05 PM');
  });
});

describe('a format the person chose', () => {
  it('wins over the language', () => {
    expect(spaced(formatTimeOfDay('20:30', '12h', 'de'))).toBe('8:30 PM');
    expect(formatTimeOfDay('08:05', '24h', 'en')).toBe('08:05');
    expect(formatPlainDate('2026-11-26', 'MM/dd/yyyy', 'de')).toBe('11/26/2026');
    expect(formatPlainDate('2026-11-26', 'yyyy-MM-dd', 'fr')).toBe('2026-11-26');
    expect(formatPlainDate('2026-11-26', 'dd/MM/yyyy', 'en')).toBe('26/11/2026');
  });
});

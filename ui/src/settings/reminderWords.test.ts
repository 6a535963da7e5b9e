import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch } from '../test/fetchMock';
import { DEFAULT_SETTINGS } from './appSettings';
import { syncReminderWords } from './reminderWords';

function putsOf(fetchMock: ReturnType<typeof mockFetch>): unknown[] {
  return fetchMock.mock.calls
    .filter(([, init]) => init?.method === 'PUT')
    .map(([, init]) => JSON.parse(typeof init?.body === 'string' ? init.body : 'null') as unknown);
}

describe('reminder language and formats on the server', () => {
  it('sends a changed choice once, and a browser on the defaults leaves the server alone', async () => {
    const fetchMock = mockFetch({ 'PUT /api/settings': () => jsonResponse({ success: true, data: {} }) });
    await syncReminderWords('7', DEFAULT_SETTINGS);
    expect(putsOf(fetchMock)).toEqual([]);

    const german = { ...DEFAULT_SETTINGS, language: 'de' as const, timeFormat: '24h' as const };
    await syncReminderWords('7', german);
    await syncReminderWords('7', german);
    expect(putsOf(fetchMock)).toEqual([{ language: 'de', dateFormat: 'MM/dd/yyyy', timeFormat: '24h' }]);

    // Going back to English is a choice too, and is sent.
    await syncReminderWords('7', DEFAULT_SETTINGS);
    expect(putsOf(fetchMock)).toHaveLength(2);
    expect(putsOf(fetchMock)[1]).toEqual({ language: 'en', dateFormat: 'MM/dd/yyyy', timeFormat: '12h' });
  });

  it('tries again after a failure', async () => {
    let fail = true;
    const fetchMock = mockFetch({
      'PUT /api/settings': () =>
        fail ? jsonResponse({ success: false, message: 'Server error' }, 500) : jsonResponse({ success: true, data: {} }),
    });
    const french = { ...DEFAULT_SETTINGS, language: 'fr' as const };
    await syncReminderWords('8', french);
    fail = false;
    await syncReminderWords('8', french);
    await syncReminderWords('8', french);
    expect(putsOf(fetchMock)).toHaveLength(2);
  });
});

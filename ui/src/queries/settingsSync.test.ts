import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { deferred, jsonResponse, mockFetch, sentJson } from '../test/fetchMock';
import { medsServer, ok, requestsTo, signInForMeds, USER } from '../test/medications';
import { renderApp } from '../test/renderApp';
import { DEFAULT_SETTINGS } from '../settings/appSettings';
import { sendIfChanged, syncAtStart } from './settingsSync';

const LOCAL = { language: 'en', dateFormat: 'MM/dd/yyyy', timeFormat: '12h', theme: 'system' } as const;
const SERVER = { language: 'de', dateFormat: 'dd/MM/yyyy', timeFormat: '24h', theme: 'dark', timezone: 'Europe/Berlin' };

/** The defaults as stored: whether the language was chosen is told by its presence. */
const STORED_DEFAULTS: Partial<typeof DEFAULT_SETTINGS> = { ...DEFAULT_SETTINGS };
delete STORED_DEFAULTS.languageChosen;

function putsOf(fetchMock: ReturnType<typeof mockFetch>): unknown[] {
  return fetchMock.mock.calls.filter(([, init]) => init?.method === 'PUT').map(([, init]) => sentJson(init));
}

describe('appearance settings on the server', () => {
  it("takes the server's settings on a device that never agreed with it, and sends nothing", async () => {
    const fetchMock = mockFetch({ 'GET /api/settings': () => ok(SERVER) });
    expect(await syncAtStart('7', LOCAL)).toEqual({
      language: 'de',
      dateFormat: 'dd/MM/yyyy',
      timeFormat: '24h',
      theme: 'dark',
    });
    expect(putsOf(fetchMock)).toEqual([]);
    // Agreed now: an unchanged browser takes later changes made elsewhere too.
    expect(await syncAtStart('7', { ...LOCAL, language: 'de', dateFormat: 'dd/MM/yyyy', timeFormat: '24h', theme: 'dark' })).toBeNull();
  });

  it('sends a change made here, once, and a change made here while away wins at the next start', async () => {
    const fetchMock = mockFetch({
      'GET /api/settings': () => ok({ ...SERVER, language: 'en', dateFormat: 'MM/dd/yyyy', timeFormat: '12h', theme: 'system' }),
      'PUT /api/settings': () => ok({}),
    });
    expect(await syncAtStart('8', LOCAL)).toBeNull();
    const french = { ...LOCAL, language: 'fr', theme: 'light' } as const;
    await sendIfChanged('8', french);
    await sendIfChanged('8', french);
    expect(putsOf(fetchMock)).toEqual([{ language: 'fr', dateFormat: 'MM/dd/yyyy', timeFormat: '12h', theme: 'light' }]);

    // Changed while the server was out of reach: sent at start, not overwritten.
    fetchMock.mockClear();
    const offline = { ...french, timeFormat: '24h' } as const;
    expect(await syncAtStart('8', offline)).toBeNull();
    expect(putsOf(fetchMock)).toEqual([{ ...offline }]);
    expect(requestsTo(fetchMock, 'GET', '/api/settings')).toEqual([]);
  });

  it('a browser kept in step by an earlier version sends its theme instead of taking the default', async () => {
    localStorage.setItem('pillbox_reminder_words:10', 'de|MM/dd/yyyy|12h');
    const fetchMock = mockFetch({
      'GET /api/settings': () => ok({ ...SERVER, language: 'de', dateFormat: 'MM/dd/yyyy', timeFormat: '12h', theme: 'system' }),
      'PUT /api/settings': () => ok({}),
    });
    const local = { ...LOCAL, language: 'de', theme: 'dark' } as const;
    expect(await syncAtStart('10', local)).toBeNull();
    expect(putsOf(fetchMock)).toEqual([{ ...local }]);
    expect(localStorage.getItem('pillbox_reminder_words:10')).toBeNull();
  });

  it('changes nothing when the server cannot be reached', async () => {
    const fetchMock = mockFetch({
      'GET /api/settings': () => jsonResponse({ success: false, code: 'internal_error', message: 'Internal server error' }, 500),
    });
    expect(await syncAtStart('9', LOCAL)).toBeNull();
    await sendIfChanged('9', { ...LOCAL, language: 'es' });
    expect(putsOf(fetchMock)).toEqual([]);
  });

  it("keeps a language chosen here while the server's settings were on their way, and sends it", async () => {
    signInForMeds();
    const answer = deferred<Response>();
    const fetchMock = medsServer({ 'GET /api/settings': () => answer.promise, 'GET /api/medications': () => ok([]) });
    renderApp('/settings?section=appearance');
    const picker = await screen.findByLabelText('Language');
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/settings').length).toBeGreaterThan(0));
    fireEvent.change(picker, { target: { value: 'fr' } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Paramètres' })).toBeTruthy();

    // The server still had another device's German.
    answer.resolve(jsonResponse({ success: true, data: SERVER }));
    await waitFor(() => expect(putsOf(fetchMock)).toEqual([expect.objectContaining({ language: 'fr' })]));
    expect(screen.getByRole('heading', { level: 1, name: 'Paramètres' })).toBeTruthy();
    expect(i18n.language).toBe('fr');
    expect(JSON.parse(localStorage.getItem('dosage_app_settings') ?? '{}')).toMatchObject({ language: 'fr' });
    await i18n.changeLanguage('en');
  });

  it('a new device signed in shows the language, formats and theme chosen elsewhere', async () => {
    expect(JSON.parse(localStorage.getItem('dosage_app_settings') ?? 'null')).toBeNull();
    signInForMeds();
    medsServer({ 'GET /api/settings': () => ok({ ...SERVER, timezone: 'UTC' }), 'GET /api/medications': () => ok([]) });
    renderApp('/today');
    // The whole app changes language once the server answers: slow on a busy machine.
    expect(await screen.findByRole('heading', { level: 1, name: 'Heute' }, { timeout: 5000 })).toBeTruthy();
    expect(i18n.language).toBe('de');
    expect(document.documentElement.classList.contains('dark')).toBe(true);
    await waitFor(() =>
      expect(JSON.parse(localStorage.getItem('dosage_app_settings') ?? '{}')).toMatchObject({
        ...STORED_DEFAULTS,
        language: 'de',
        dateFormat: 'dd/MM/yyyy',
        timeFormat: '24h',
        theme: 'dark',
      }),
    );
    expect(localStorage.getItem(`pillbox_synced_settings:${USER.id}`)).toBe('de|dd/MM/yyyy|24h|dark');
    await i18n.changeLanguage('en');
  });
});

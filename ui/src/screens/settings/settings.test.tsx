import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthProvider } from '../../auth/AuthProvider';
import { SettingsProvider } from '../../settings/SettingsProvider';
import { disabledState } from '../../test/disabledReason';
import { deferred, jsonResponse, mockFetch, requestUrl, sentJson, sessionRoutes, type Route } from '../../test/fetchMock';
import { renderWithQuery } from '../../test/queryClient';
import { renderApp } from '../../test/renderApp';
import { SettingsScreen } from '../SettingsScreen';

const USER = {
  id: 9,
  email: 'sam@example.com',
  firstName: '',
  lastName: '',
  emailVerified: true,
  created_at: '2026-11-21T12:00:00Z',
};
const CODES = ['ABCD2345', 'EFGH6789', 'JKMN2345', 'PQRS6789', 'TUVW2345', 'XYZA6789', 'BCDE2345', 'FGHJ6789', 'KMNP2345', 'QRST6789'];
const version = () => jsonResponse({ success: true, data: { version: '1.0.0' } });
const PASSWORD = 'my password';

/**
 * Like the real server, the calls a stolen session token must not make alone want the
 * account password in the body: null when it is right, else the server's answer.
 */
function passwordRefused(init: RequestInit | undefined): Response | null {
  const { password } = (sentJson(init) ?? {}) as { password?: unknown };
  if (typeof password !== 'string' || password === '') {
    return jsonResponse({ success: false, code: 'validation_failed', message: 'Please enter your password' }, 400);
  }
  return password === PASSWORD ? null : jsonResponse({ success: false, code: 'password_incorrect', message: 'Password is incorrect' }, 400);
}

function authHeader(init: RequestInit | undefined): string | undefined {
  return (init?.headers as Record<string, string> | undefined)?.Authorization;
}

/**
 * A server that, like the real one, only accepts the newest token once two-factor settings
 * changed: `tokens.current` is the one it takes.
 */
function server(routes: Record<string, Route>, tokens = { current: 'refreshed-token' }) {
  const guarded = Object.fromEntries(
    Object.entries(routes).map(([key, route]) => [
      key,
      (init: RequestInit | undefined, url: URL) =>
        authHeader(init) === `Bearer ${tokens.current}`
          ? route(init, url)
          : jsonResponse({ success: false, code: 'session_expired', message: 'Invalid or expired session' }, 401),
    ]),
  );
  // The API tokens card on the same page: none made; and no identity provider linked.
  const noApiTokens = () => jsonResponse({ success: true, data: [] });
  return mockFetch({
    'GET /api/version': version,
    ...sessionRoutes(USER),
    'GET /api/tokens': noApiTokens,
    'GET /api/auth/oidc/identities': noApiTokens,
    ...guarded,
  });
}

function signIn() {
  localStorage.setItem('token', 'stored-token');
  localStorage.setItem('user', JSON.stringify(USER));
}

const status = (methods: string[], extra: Record<string, unknown> = {}) =>
  jsonResponse({
    success: true,
    data: {
      methods,
      preference: methods[0] ?? null,
      backupCodesRemaining: methods.length ? 10 : 0,
      emailAvailable: true,
      ...extra,
    },
  });

afterEach(() => {
  vi.useRealTimers();
  // The copy test gives the page a clipboard; the other tests get none.
  Reflect.deleteProperty(navigator, 'clipboard');
});

describe('settings page', () => {
  it('without a user shows "Authentication Required" and a way to the login', () => {
    mockFetch({ 'GET /api/version': version });
    // The session check at start asks what the sign-in page offers through the query cache.
    renderWithQuery(
      <MemoryRouter>
        <SettingsProvider>
          <AuthProvider>
            <SettingsScreen />
          </AuthProvider>
        </SettingsProvider>
      </MemoryRouter>,
    );
    expect(screen.getByRole('heading', { name: 'Authentication Required' })).toBeTruthy();
    expect(screen.getByText('Please log in to access settings')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Go to Login' }).getAttribute('href')).toBe('/login');
  });

  it('lists the seven sections and opens Profile first', async () => {
    signIn();
    server({});
    renderApp('/settings');
    const nav = await screen.findByRole('navigation', { name: 'Settings sections' });
    expect(within(nav).getAllByRole('link').map((link) => link.textContent)).toEqual([
      'Profile',
      'Notifications',
      'Appearance',
      'Medications',
      'Data Management',
      'Privacy & Security',
      'Account',
    ]);
    expect(within(nav).getByRole('link', { name: 'Profile' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('heading', { name: 'Profile', level: 2 })).toBeTruthy();
    expect(screen.getByText('Not set')).toBeTruthy();
    expect(screen.getByText('November 21, 2026')).toBeTruthy();

    await userEvent.click(within(nav).getByRole('link', { name: 'Notifications' }));
    expect(screen.getByRole('heading', { name: 'Notifications', level: 2 })).toBeTruthy();
    expect(screen.getByText('When and how Pillbox reminds you of your doses.')).toBeTruthy();
  });
});

describe('profile', () => {
  it('edits first and last name and says so for 3 seconds', async () => {
    signIn();
    const fetchMock = server({
      'PUT /api/auth/me': (init) =>
        jsonResponse({
          success: true,
          message: 'Profile updated successfully',
          data: { ...USER, ...(sentJson(init) as object) },
        }),
    });
    renderApp('/settings?section=profile');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    await user.type(screen.getByLabelText('First name'), ' Sam ');
    await user.type(screen.getByLabelText('Last name'), 'Rivera');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));

    expect(await screen.findByText('Profile updated successfully')).toBeTruthy();
    expect(screen.getByText('Sam Rivera', { selector: 'dd' })).toBeTruthy();
    // The sidebar greets the person by the new name too.
    expect(within(screen.getByTestId('sidebar')).getByTestId('user-name').textContent).toBe('Sam Rivera');
    const put = fetchMock.mock.calls.find(([url, init]) => requestUrl(url) === '/api/auth/me' && init?.method === 'PUT');
    expect(sentJson(put?.[1])).toEqual({ firstName: 'Sam', lastName: 'Rivera' });
    expect(JSON.parse(localStorage.getItem('user') ?? '{}')).toMatchObject({ firstName: 'Sam', lastName: 'Rivera' });

    act(() => {
      vi.advanceTimersByTime(3000);
    });
    expect(screen.queryByText('Profile updated successfully')).toBeNull();
  });
});

describe('appearance', () => {
  it('switches the language live and stores it in dosage_app_settings', async () => {
    signIn();
    server({});
    renderApp('/settings?section=appearance');
    const user = userEvent.setup();
    await user.selectOptions(await screen.findByLabelText('Language'), 'Deutsch');
    expect(await screen.findByRole('heading', { name: 'Einstellungen', level: 1 })).toBeTruthy();
    expect(screen.getByText('App-Einstellungen erfolgreich aktualisiert')).toBeTruthy();
    expect(JSON.parse(localStorage.getItem('dosage_app_settings') ?? '{}')).toMatchObject({ language: 'de' });

    await user.selectOptions(screen.getByLabelText('Zeitformat'), '24h');
    await user.click(screen.getByRole('radio', { name: 'Dunkel' }));
    await user.selectOptions(screen.getByLabelText('Datumsformat'), 'yyyy-MM-dd');
    expect(JSON.parse(localStorage.getItem('dosage_app_settings') ?? '{}')).toMatchObject({
      language: 'de',
      timeFormat: '24h',
      theme: 'dark',
      dateFormat: 'yyyy-MM-dd',
    });
    expect(document.documentElement.classList.contains('dark')).toBe(true);
  });

  it('names the date and time formats in the language, each with an example, and follows the language until one is chosen', async () => {
    signIn();
    server({});
    renderApp('/settings?section=appearance');
    const user = userEvent.setup();
    const optionTexts = (label: string) =>
      [...screen.getByLabelText<HTMLSelectElement>(label).options].map((option) => option.textContent.replace(/\u202f/g, ' '));
    const dates = await screen.findByLabelText<HTMLSelectElement>('Date format');
    expect(dates.value).toBe('auto');
    expect(optionTexts('Date format')).toEqual([
      'Language default (11/26/2026)',
      'MM/DD/YYYY (11/26/2026)',
      'DD/MM/YYYY (26/11/2026)',
      'YYYY-MM-DD (2026-11-26)',
    ]);
    expect(screen.getByLabelText<HTMLSelectElement>('Time format').value).toBe('auto');
    expect(optionTexts('Time format')).toEqual(['Language default (2:30 PM)', '12-hour (2:30 PM)', '24-hour (14:30)']);

    await user.selectOptions(screen.getByLabelText('Language'), 'Deutsch');
    expect(optionTexts('Datumsformat')).toEqual([
      'Wie in der Sprache üblich (26.11.2026)',
      'MM/TT/JJJJ (11/26/2026)',
      'TT/MM/JJJJ (26/11/2026)',
      'JJJJ-MM-TT (2026-11-26)',
    ]);
    expect(optionTexts('Zeitformat')).toEqual(['Wie in der Sprache üblich (14:30)', '12 Stunden (2:30 PM)', '24 Stunden (14:30)']);
  });

  it('finds a time zone by name or offset, under its current name', { timeout: 15_000 }, async () => {
    signIn();
    server({ 'GET /api/settings': () => jsonResponse({ success: true, data: { timezone: 'Asia/Calcutta' } }) });
    renderApp('/settings?section=appearance');
    const user = userEvent.setup();
    // The first list works out some 400 offsets: slow on a busy machine.
    const select = await screen.findByRole<HTMLSelectElement>('combobox', { name: 'Time zone' });
    // The old name the server still holds is shown under today's.
    expect(select.value).toBe('Asia/Kolkata');
    const labels = () => [...select.options].map((option) => option.textContent);
    expect(labels()).toContain('(UTC+05:30) Asia/Kolkata');
    expect(labels()).not.toContain('(UTC+05:30) Asia/Calcutta');
    expect(labels().some((label) => label.endsWith('Europe/Kyiv'))).toBe(true);
    expect(labels().some((label) => label.endsWith('Europe/Kiev'))).toBe(false);

    const search = screen.getByRole('searchbox', { name: 'Search time zones' });
    // Pasted rather than typed key by key: each key redraws some 400 zones.
    await user.click(search);
    await user.paste('tokyo');
    expect(labels()).toEqual(['(UTC+05:30) Asia/Kolkata', '(UTC+09:00) Asia/Tokyo']);
    expect(screen.getByText('1 time zone found')).toBeTruthy();
    await user.clear(search);
    await user.paste('UTC+5:45');
    expect(labels()).toEqual(['(UTC+05:30) Asia/Kolkata', '(UTC+05:45) Asia/Kathmandu']);
  });

  it('shows the stored time zone and saves another one', async () => {
    signIn();
    let zone = 'America/New_York';
    const fetchMock = server({
      'GET /api/settings': () => jsonResponse({ success: true, data: { timezone: zone } }),
      'PUT /api/settings': (init) => {
        zone = (sentJson(init) as { timezone: string }).timezone;
        return jsonResponse({ success: true, data: { timezone: zone } });
      },
    });
    renderApp('/settings?section=appearance');
    const select = await screen.findByRole<HTMLSelectElement>('combobox', { name: 'Time zone' });
    expect(select.value).toBe('America/New_York');
    expect([...select.options].map((option) => option.value)).toContain('Asia/Tokyo');
    await userEvent.selectOptions(select, 'Asia/Tokyo');
    expect(await screen.findByText('Time zone saved')).toBeTruthy();
    const puts = fetchMock.mock.calls.filter(([input, init]) => init?.method === 'PUT' && requestUrl(input) === '/api/settings');
    expect(puts.map(([, init]) => sentJson(init))).toEqual([{ timezone: 'Asia/Tokyo' }]);
    expect(select.value).toBe('Asia/Tokyo');
    expect(JSON.parse(localStorage.getItem('dosage_app_settings') ?? '{}')).toMatchObject({ timezone: 'Asia/Tokyo' });
  });

  it('says so when the time zone cannot be saved, and shows the stored one again', async () => {
    signIn();
    server({
      'GET /api/settings': () => jsonResponse({ success: true, data: { timezone: 'UTC' } }),
      'PUT /api/settings': () => jsonResponse({ success: false, code: 'internal_error', message: 'Server error' }, 500),
    });
    renderApp('/settings?section=appearance');
    const select = await screen.findByRole<HTMLSelectElement>('combobox', { name: 'Time zone' });
    await userEvent.selectOptions(select, 'Asia/Tokyo');
    expect((await screen.findByText('Failed to save the time zone')).getAttribute('role')).toBe('alert');
    expect(select.value).toBe('UTC');
  });
});

describe('two-factor management', () => {
  it('enabling e-mail codes stores the new token before the status is reloaded', async () => {
    signIn();
    const tokens = { current: 'refreshed-token' };
    let enabled = false;
    const fetchMock = server(
      {
        'GET /api/auth/2fa/status': () => status(enabled ? ['email'] : []),
        'POST /api/auth/2fa/setup-email': (init) => {
          const refused = passwordRefused(init);
          if (refused) return refused;
          enabled = true;
          // The server signs out every other session: only the new token works from now on.
          tokens.current = 'token-after-2fa';
          return jsonResponse({
            success: true,
            message: 'Email two-factor authentication enabled',
            data: { backupCodes: CODES, token: 'token-after-2fa', methods: ['email'] },
          });
        },
      },
      tokens,
    );
    renderApp('/settings?section=security');
    const emailMethod = await screen.findByTestId('method-email');
    await waitFor(() => expect(screen.getByTestId('two-factor-state').textContent).toBe('Off'));
    const user = userEvent.setup();
    await user.click(within(emailMethod).getByRole('button', { name: 'Turn on' }));

    // The password first: without it the dialog cannot be sent, a wrong one is refused.
    const confirm = await screen.findByRole('dialog', { name: 'Turn on email codes' });
    expect(within(confirm).getByText(/a code will be sent to sam@example\.com/)).toBeTruthy();
    const field = within(confirm).getByLabelText('Current password');
    expect(field.getAttribute('type')).toBe('password');
    expect(field.getAttribute('autocomplete')).toBe('current-password');
    expect(document.activeElement).toBe(field);
    const submit = within(confirm).getByRole('button', { name: 'Turn on' });
    expect(submit).toHaveProperty('disabled', true);
    await user.type(field, 'wrong password');
    await user.click(submit);
    expect((await within(confirm).findByRole('alert')).textContent).toBe('Password is incorrect');
    expect(localStorage.getItem('token')).toBe('refreshed-token');
    await user.clear(field);
    expect(submit).toHaveProperty('disabled', true);
    await user.type(field, PASSWORD);
    await user.click(submit);

    const dialog = await screen.findByRole('dialog', { name: 'Email codes are on' });
    expect(within(dialog).getAllByRole('listitem').map((item) => item.textContent)).toEqual(CODES);
    expect(within(dialog).getByRole('button', { name: 'Copy codes' })).toBeTruthy();
    expect(localStorage.getItem('token')).toBe('token-after-2fa');

    await waitFor(() => expect(screen.getByTestId('two-factor-state').textContent).toBe('On'));
    const statusCalls = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/2fa/status');
    expect(statusCalls.map(([, init]) => authHeader(init))).toEqual([
      'Bearer refreshed-token',
      'Bearer token-after-2fa',
    ]);
    // Still signed in: nothing was refused.
    expect(screen.getByTestId('location').textContent).toBe('/settings');
    const setups = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/2fa/setup-email');
    expect(setups.map(([, init]) => sentJson(init))).toEqual([{ password: 'wrong password' }, { password: PASSWORD }]);

    await user.click(within(dialog).getByRole('button', { name: 'I have saved these codes' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('the password is gone when the e-mail dialog is closed and opened again', async () => {
    signIn();
    const fetchMock = server({ 'GET /api/auth/2fa/status': () => status([]) });
    renderApp('/settings?section=security');
    const user = userEvent.setup();
    const turnOn = within(await screen.findByTestId('method-email')).getByRole('button', { name: 'Turn on' });
    await waitFor(() => expect(turnOn).toHaveProperty('disabled', false));
    await user.click(turnOn);
    let dialog = await screen.findByRole('dialog', { name: 'Turn on email codes' });
    await user.type(within(dialog).getByLabelText('Current password'), PASSWORD);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();

    await user.click(turnOn);
    dialog = await screen.findByRole('dialog', { name: 'Turn on email codes' });
    expect(within(dialog).getByLabelText<HTMLInputElement>('Current password').value).toBe('');
    expect(within(dialog).getByRole('button', { name: 'Turn on' })).toHaveProperty('disabled', true);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(fetchMock.mock.calls.some(([url]) => requestUrl(url) === '/api/auth/2fa/setup-email')).toBe(false);
  });

  it('while the default method is saved, the other changes say why they wait', async () => {
    signIn();
    const saved = deferred<Response>();
    server({
      'GET /api/auth/2fa/status': () => status(['email', 'totp']),
      'POST /api/auth/2fa/set-preference': () => saved.promise,
    });
    renderApp('/settings?section=security');
    const group = await screen.findByRole('group', { name: 'Default method' });
    const user = userEvent.setup();
    await user.click(within(group).getByRole('radio', { name: 'Authenticator app' }));
    const why = 'Saving your default method...';
    const waiting = { disabled: true, reason: why, title: why };
    expect(disabledState(within(group).getByRole('radio', { name: 'Email' }))).toEqual(waiting);
    expect(disabledState(screen.getByRole('button', { name: 'Regenerate backup codes' }))).toEqual(waiting);

    saved.resolve(jsonResponse({ success: true, data: { preference: 'totp' } }));
    expect(await screen.findByText('Authenticator app is now your default method.')).toBeTruthy();
    expect(disabledState(screen.getByRole('button', { name: 'Regenerate backup codes' }))).toEqual({
      disabled: false,
      reason: null,
      title: null,
    });
  });

  it('cannot enable e-mail codes when the server has no e-mail, and says why', async () => {
    signIn();
    server({ 'GET /api/auth/2fa/status': () => status([], { emailAvailable: false }) });
    renderApp('/settings?section=security');
    const emailMethod = await screen.findByTestId('method-email');
    await waitFor(() =>
      expect(within(emailMethod).getByRole('button', { name: 'Turn on' })).toHaveProperty('disabled', true),
    );
    expect(within(emailMethod).getByText(/This server cannot send email/)).toBeTruthy();
    const turnOn = within(emailMethod).getByRole('button', { name: 'Turn on' });
    expect(turnOn.getAttribute('title')).toMatch(/^This server cannot send email/);
    expect(
      (turnOn.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? ''),
    ).toContainEqual(expect.stringMatching(/^This server cannot send email/));
    expect(within(screen.getByTestId('method-totp')).getByRole('button', { name: 'Turn on' })).toHaveProperty(
      'disabled',
      false,
    );
  });

  it('sets up the authenticator: intro, QR code and key, code, backup codes', async () => {
    signIn();
    const tokens = { current: 'refreshed-token' };
    let enabled = false;
    const fetchMock = server(
      {
        'GET /api/auth/2fa/status': () => status(enabled ? ['totp'] : []),
        'POST /api/auth/2fa/setup-totp': (init) =>
          passwordRefused(init) ??
          jsonResponse({
            success: true,
            data: { secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', qrCodeUrl: 'data:image/png;base64,iVBORw0KGgo=' },
          }),
        'POST /api/auth/2fa/complete-totp-setup': (init) => {
          if ((sentJson(init) as { otp: string }).otp !== '246810') {
            return jsonResponse({ success: false, code: 'invalid_code', message: 'Invalid verification code' }, 400);
          }
          enabled = true;
          tokens.current = 'token-after-totp';
          return jsonResponse({
            success: true,
            data: { backupCodes: CODES, token: 'token-after-totp', methods: ['totp'] },
          });
        },
      },
      tokens,
    );
    renderApp('/settings?section=security');
    const user = userEvent.setup();
    await user.click(within(await screen.findByTestId('method-totp')).getByRole('button', { name: 'Turn on' }));

    const intro = await screen.findByRole('dialog', { name: 'Set up an authenticator app' });
    const start = within(intro).getByRole('button', { name: 'Start setup' });
    const password = within(intro).getByLabelText('Current password');
    expect(password.getAttribute('type')).toBe('password');
    expect(password.getAttribute('autocomplete')).toBe('current-password');
    expect(start).toHaveProperty('disabled', true);
    await user.type(password, 'not it');
    await user.click(start);
    expect((await within(intro).findByRole('alert')).textContent).toBe('Password is incorrect');
    await user.clear(password);
    await user.type(password, PASSWORD);
    // Enter sends the form.
    await user.keyboard('{Enter}');

    const qr = await screen.findByRole('img', { name: 'QR code for your authenticator app' });
    expect(qr.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(screen.queryByTestId('totp-secret')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Show key' }));
    expect(screen.getByTestId('totp-secret').textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    await user.click(screen.getByRole('button', { name: 'Hide key' }));
    expect(screen.queryByTestId('totp-secret')).toBeNull();

    await user.click(screen.getByLabelText('Digit 1 of 6'));
    await user.keyboard('111111');
    expect((await screen.findByRole('alert')).textContent).toBe('Invalid verification code');

    await user.click(screen.getByLabelText('Digit 1 of 6'));
    await user.paste('246 810');
    const done = await screen.findByRole('dialog', { name: 'Authenticator app is on' });
    expect(within(done).getAllByRole('listitem')).toHaveLength(10);
    expect(localStorage.getItem('token')).toBe('token-after-totp');
    await waitFor(() => expect(screen.getByTestId('two-factor-state').textContent).toBe('On'));
    const completions = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/2fa/complete-totp-setup');
    expect(completions.map(([, init]) => sentJson(init))).toEqual([{ otp: '111111' }, { otp: '246810' }]);
    const starts = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/2fa/setup-totp');
    expect(starts.map(([, init]) => sentJson(init))).toEqual([{ password: 'not it' }, { password: PASSWORD }]);
  });

  it('the copied indicator lasts 2 seconds', async () => {
    signIn();
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    server({
      'GET /api/auth/2fa/status': () => status([]),
      'POST /api/auth/2fa/setup-email': () =>
        jsonResponse({ success: true, data: { backupCodes: CODES, token: 'refreshed-token', methods: ['email'] } }),
    });
    renderApp('/settings?section=security');
    await userEvent.click(within(await screen.findByTestId('method-email')).getByRole('button', { name: 'Turn on' }));
    const confirm = await screen.findByRole('dialog', { name: 'Turn on email codes' });
    await userEvent.type(within(confirm).getByLabelText('Current password'), PASSWORD);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Turn on' }));
    const dialog = await screen.findByRole('dialog', { name: 'Email codes are on' });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Copy codes' }));
    expect(writeText).toHaveBeenCalledWith(CODES.join('\n'));
    expect(await within(dialog).findByRole('button', { name: 'Copied!' })).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(1900);
    });
    expect(within(dialog).getByRole('button', { name: 'Copied!' })).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(100);
    });
    expect(within(dialog).getByRole('button', { name: 'Copy codes' })).toBeTruthy();
  });

  it('turning a method off needs a backup code; the new token is kept', async () => {
    signIn();
    const tokens = { current: 'refreshed-token' };
    let methods = ['email', 'totp'];
    const fetchMock = server(
      {
        'GET /api/auth/2fa/status': () => status(methods),
        'POST /api/auth/2fa/disable-method': (init) => {
          const body = sentJson(init) as { method: string; backupCode: string };
          if (body.backupCode !== 'ABCD2345') return jsonResponse({ success: false, code: 'invalid_backup_code', message: 'Invalid backup code' }, 400);
          methods = ['email'];
          tokens.current = 'token-after-disable';
          return jsonResponse({ success: true, data: { token: 'token-after-disable', methods, preference: 'email' } });
        },
      },
      tokens,
    );
    renderApp('/settings?section=security');
    const user = userEvent.setup();
    // Two methods: a default can be chosen.
    expect(await screen.findByRole('group', { name: 'Default method' })).toBeTruthy();
    await user.click(within(screen.getByTestId('method-totp')).getByRole('button', { name: 'Turn off' }));

    const dialog = await screen.findByRole('dialog', { name: 'Turn off authenticator app codes' });
    const submit = within(dialog).getByRole('button', { name: 'Turn off' });
    const field = within(dialog).getByLabelText('Backup code');
    expect(submit).toHaveProperty('disabled', true);
    await user.type(field, '   ');
    expect(submit).toHaveProperty('disabled', true);
    await user.type(field, 'WRONG1234567');
    expect((field as HTMLInputElement).value).toBe('WRONG123');
    await user.click(submit);
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Invalid backup code');

    await user.clear(field);
    await user.type(field, ' ABCD2345 ');
    await user.click(submit);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(localStorage.getItem('token')).toBe('token-after-disable');
    expect(await screen.findByText('Authenticator app is now off.')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('group', { name: 'Default method' })).toBeNull());
    const disables = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/2fa/disable-method');
    expect(disables.map(([, init]) => sentJson(init))).toEqual([
      { method: 'totp', backupCode: 'WRONG123' },
      { method: 'totp', backupCode: 'ABCD2345' },
    ]);
  });

  it('regenerates backup codes after asking for the password', async () => {
    signIn();
    const fetchMock = server({
      'GET /api/auth/2fa/status': () => status(['totp']),
      'POST /api/auth/2fa/backup-codes': (init) =>
        passwordRefused(init) ?? jsonResponse({ success: true, data: { backupCodes: CODES } }),
    });
    renderApp('/settings?section=security');
    const user = userEvent.setup();
    expect((await screen.findByTestId('backup-codes-remaining')).textContent).toBe('Backup codes left: 10');
    await user.click(screen.getByRole('button', { name: 'Regenerate backup codes' }));
    const confirm = await screen.findByRole('dialog', { name: 'Regenerate backup codes?' });
    expect(within(confirm).getByText(/current backup codes stop working/)).toBeTruthy();
    const regenerate = within(confirm).getByRole('button', { name: 'Regenerate' });
    const field = within(confirm).getByLabelText('Current password');
    expect(field.getAttribute('autocomplete')).toBe('current-password');
    expect(regenerate).toHaveProperty('disabled', true);
    await user.type(field, 'guess');
    await user.click(regenerate);
    // A wrong password keeps the dialog open with the server's answer.
    expect((await within(confirm).findByRole('alert')).textContent).toBe('Password is incorrect');
    await user.clear(field);
    await user.type(field, PASSWORD);
    await user.click(regenerate);
    const codes = await screen.findByRole('dialog', { name: 'Your new backup codes' });
    expect(within(codes).getAllByRole('listitem')).toHaveLength(10);
    const calls = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/2fa/backup-codes');
    expect(calls.map(([, init]) => sentJson(init))).toEqual([{ password: 'guess' }, { password: PASSWORD }]);
  });

  it('shows the spec text when the status cannot be loaded', async () => {
    signIn();
    server({ 'GET /api/auth/2fa/status': () => new Response(null, { status: 500 }) });
    renderApp('/settings?section=security');
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to load 2FA status');
  });
});

describe('change password', () => {
  it('checks the new password twice and keeps the token the server hands back', async () => {
    signIn();
    const fetchMock = server({
      'GET /api/auth/2fa/status': () => status([]),
      'POST /api/auth/change-password': () =>
        jsonResponse({ success: true, message: 'Password changed successfully', data: { user: USER, token: 'token-after-password' } }),
    });
    renderApp('/settings?section=security');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Change Password' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change password' });
    await user.type(within(dialog).getByLabelText('Current password'), 'old-password');
    await user.type(within(dialog).getByLabelText('New password'), 'new-password');
    await user.type(within(dialog).getByLabelText('Confirm new password'), 'new-passwort');
    await user.click(within(dialog).getByRole('button', { name: 'Change Password' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('Passwords do not match');

    await user.clear(within(dialog).getByLabelText('Confirm new password'));
    await user.type(within(dialog).getByLabelText('Confirm new password'), 'new-password');
    await user.click(within(dialog).getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('Password changed successfully')).toBeTruthy();
    expect(localStorage.getItem('token')).toBe('token-after-password');
    const change = fetchMock.mock.calls.find(([url]) => requestUrl(url) === '/api/auth/change-password');
    expect(sentJson(change?.[1])).toEqual({ currentPassword: 'old-password', newPassword: 'new-password' });
  });
});

describe('account deletion', () => {
  it('enables the confirm button only for exactly DELETE and a password, then deletes and goes to /login', async () => {
    signIn();
    const fetchMock = server({
      'DELETE /api/auth/me': (init) => passwordRefused(init) ?? jsonResponse({ success: true, message: 'Account deleted' }),
    });
    renderApp('/settings?section=account');
    const user = userEvent.setup();
    expect(await screen.findByText('Active')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Delete Account' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete account' });
    const confirm = within(dialog).getByRole('button', { name: 'Delete my account' });
    const field = within(dialog).getByLabelText('Type DELETE to confirm');
    const password = within(dialog).getByLabelText('Current password');
    expect(password.getAttribute('type')).toBe('password');
    expect(password.getAttribute('autocomplete')).toBe('current-password');

    expect(confirm).toHaveProperty('disabled', true);
    // A disabled button says why, next to it and in its description.
    const reason = () => within(dialog).queryByTestId('disabled-reason')?.textContent ?? null;
    expect(reason()).toBe('Type DELETE above to continue.');
    expect(confirm.getAttribute('aria-describedby')).toBe(within(dialog).getByTestId('disabled-reason').id);
    await user.type(field, 'DELETE');
    expect(reason()).toBe('Enter your password to continue.');
    await user.clear(field);
    await user.type(password, PASSWORD);
    expect(reason()).toBe('Type DELETE above to continue.');
    for (const attempt of ['delete', 'DELET', 'DELETE ', ' DELETE', 'Delete']) {
      await user.clear(field);
      await user.type(field, attempt);
      expect(confirm).toHaveProperty('disabled', true);
    }
    await user.clear(field);
    await user.type(field, 'DELETE');
    expect(confirm).toHaveProperty('disabled', false);
    expect(reason()).toBeNull();
    expect(confirm.getAttribute('aria-describedby')).toBeNull();
    // The word alone is not enough.
    await user.clear(password);
    expect(confirm).toHaveProperty('disabled', true);
    await user.type(password, PASSWORD);
    expect(confirm).toHaveProperty('disabled', false);
    expect(fetchMock.mock.calls.some(([url, init]) => requestUrl(url) === '/api/auth/me' && init?.method === 'DELETE')).toBe(
      false,
    );

    await user.click(confirm);
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(screen.getByTestId('location').textContent).toBe('/login');
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
    const deletes = fetchMock.mock.calls.filter(([url, init]) => requestUrl(url) === '/api/auth/me' && init?.method === 'DELETE');
    expect(deletes.map(([, init]) => sentJson(init))).toEqual([{ password: PASSWORD }]);
  });

  it('a wrong password says "Password is incorrect" and keeps the account and the session', async () => {
    signIn();
    server({
      'DELETE /api/auth/me': (init) => passwordRefused(init) ?? jsonResponse({ success: true, message: 'Account deleted' }),
    });
    renderApp('/settings?section=account');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete Account' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete account' });
    await user.type(within(dialog).getByLabelText('Type DELETE to confirm'), 'DELETE');
    await user.type(within(dialog).getByLabelText('Current password'), 'wrong password');
    await user.click(within(dialog).getByRole('button', { name: 'Delete my account' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Password is incorrect');
    expect(screen.getByTestId('location').textContent).toBe('/settings');
    expect(localStorage.getItem('token')).toBe('refreshed-token');

    // Closing the dialog forgets what was typed.
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.click(screen.getByRole('button', { name: 'Delete Account' }));
    const again = await screen.findByRole('dialog', { name: 'Delete account' });
    expect(within(again).getByLabelText<HTMLInputElement>('Current password').value).toBe('');
    expect(within(again).getByLabelText<HTMLInputElement>('Type DELETE to confirm').value).toBe('');
  });

  it('says "Failed to delete account" when the server gives no reason', async () => {
    signIn();
    server({ 'DELETE /api/auth/me': () => new Response(null, { status: 500 }) });
    renderApp('/settings?section=account');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete Account' }));
    await user.type(screen.getByLabelText('Type DELETE to confirm'), 'DELETE');
    await user.type(screen.getByLabelText('Current password'), PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to delete account');
    expect(localStorage.getItem('token')).toBe('refreshed-token');
  });
});

describe('signing out of all devices', () => {
  it('asks first, then ends every session on the server and returns to /login', async () => {
    signIn();
    const fetchMock = server({
      'POST /api/auth/logout-all': () => jsonResponse({ success: true, message: 'Signed out of all devices' }),
    });
    renderApp('/settings?section=account');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign out of all devices' }));
    const dialog = await screen.findByRole('dialog', { name: 'Sign out of all devices?' });
    expect(within(dialog).getByText(/this one included, will have to sign in again/)).toBeTruthy();
    const calls = () => fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/logout-all');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls()).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Sign out of all devices' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Sign out everywhere' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(screen.getByTestId('location').textContent).toBe('/login');
    expect(localStorage.getItem('token')).toBeNull();
    expect(calls().map(([, init]) => authHeader(init))).toEqual(['Bearer refreshed-token']);
  });

  it('says why when the server refuses, and keeps this session', async () => {
    signIn();
    server({
      'POST /api/auth/logout-all': () =>
        jsonResponse({ success: false, code: 'rate_limited', message: 'Too many attempts. Please try again later.' }, 429),
    });
    renderApp('/settings?section=account');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign out of all devices' }));
    const dialog = await screen.findByRole('dialog', { name: 'Sign out of all devices?' });
    await user.click(within(dialog).getByRole('button', { name: 'Sign out everywhere' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Too many attempts. Please try again later.');
    expect(screen.getByTestId('location').textContent).toBe('/settings');
    expect(localStorage.getItem('token')).toBe('refreshed-token');
  });

  it('says "Could not sign out of all devices" when the server gives no reason', async () => {
    signIn();
    server({ 'POST /api/auth/logout-all': () => new Response(null, { status: 500 }) });
    renderApp('/settings?section=account');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign out of all devices' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Sign out everywhere' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Could not sign out of all devices');
  });
});

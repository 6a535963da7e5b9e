import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { deferred, jsonResponse, mockFetch, requestUrl, sentJson, sessionRoutes } from '../test/fetchMock';
import { requestsTo } from '../test/medications';
import { renderApp } from '../test/renderApp';

const USER = {
  id: 1,
  email: 'robin@example.com',
  firstName: 'Robin',
  lastName: 'Lee',
  created_at: '2026-01-02T03:04:05Z',
};
const version = () => jsonResponse({ success: true, data: { version: '1.0.0' } });

function storeSession() {
  localStorage.setItem('token', 'stored-token');
  localStorage.setItem('user', JSON.stringify(USER));
}

const location = () => screen.getByTestId('location').textContent;

describe('auth start-up', () => {
  it('without a stored token goes straight to /login and asks the server nothing about the user', async () => {
    const fetchMock = mockFetch({ 'GET /api/version': version });
    renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(location()).toBe('/login');
    expect(fetchMock.mock.calls.some(([url]) => requestUrl(url).includes('/api/auth/me'))).toBe(false);
  });

  it('removes the stored token and user when /api/auth/me fails, and signs out', async () => {
    storeSession();
    mockFetch({
      'GET /api/version': version,
      'GET /api/auth/me': () => jsonResponse({ success: false, code: 'session_expired', message: 'Invalid token' }, 401),
    });
    renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(location()).toBe('/login');
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
    expect(screen.queryByTestId('sidebar')).toBeNull();
  });

  it('keeps the session when the server cannot be reached, and says the app is offline', async () => {
    storeSession();
    mockFetch({
      'GET /api/version': version,
      'GET /api/auth/me': () => Promise.reject(new TypeError('Failed to fetch')),
      'GET /api/medications': () => Promise.reject(new TypeError('Failed to fetch')),
    });
    renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'Today', level: 1 })).toBeTruthy();
    expect(location()).toBe('/today');
    expect(screen.getByTestId('user-email').textContent).toBe(USER.email);
    expect(screen.getByTestId('offline-notice').textContent).toContain("You're offline.");
    expect(localStorage.getItem('token')).toBe('stored-token');
    expect(localStorage.getItem('user')).not.toBeNull();
  });

  it('keeps the session when the server fails or the refresh cannot be made; only a 401 signs out', async () => {
    storeSession();
    mockFetch({
      'GET /api/version': version,
      'GET /api/auth/me': () => jsonResponse({ success: false, code: 'internal_error', message: 'Internal server error' }, 500),
    });
    const first = renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'Today', level: 1 })).toBeTruthy();
    expect(localStorage.getItem('token')).toBe('stored-token');
    first.unmount();

    const fetchMock = mockFetch({
      'GET /api/version': version,
      'GET /api/auth/me': () => jsonResponse({ success: true, data: USER }),
      'POST /api/auth/refresh': () => Promise.reject(new TypeError('Failed to fetch')),
    });
    renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'Today', level: 1 })).toBeTruthy();
    await waitFor(() => expect(requestsTo(fetchMock, 'POST', '/api/auth/refresh')).toHaveLength(1));
    expect(localStorage.getItem('token')).toBe('stored-token');
  });

  it('serves what the service worker kept, with the offline notice, and leaves it once the server answers', async () => {
    storeSession();
    const offlineCopy = (body: unknown) =>
      new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json', 'X-Pillbox-Offline': '1' } });
    // Offline: the service worker answers what it kept, everything else fails.
    const kept: Record<string, unknown> = {
      '/api/auth/me': { success: true, data: USER },
      '/api/medications': { success: true, data: [] },
    };
    vi.stubGlobal(
      'fetch',
      vi.fn((input: RequestInfo | URL) => {
        const body = kept[new URL(requestUrl(input), 'http://localhost').pathname];
        return body ? Promise.resolve(offlineCopy(body)) : Promise.reject(new TypeError('Failed to fetch'));
      }),
    );
    renderApp('/today');
    expect(await screen.findByTestId('empty-state')).toBeTruthy();
    expect(screen.getByTestId('offline-notice')).toBeTruthy();
    window.dispatchEvent(new Event('online'));
    await waitFor(() => expect(screen.queryByTestId('offline-notice')).toBeNull());
  });

  it.each([
    ['data', { success: true, data: USER }],
    ['user', { success: true, user: USER }],
  ])('accepts the user from the %s field', async (_field, body) => {
    storeSession();
    mockFetch({
      'GET /api/version': version,
      ...sessionRoutes(USER),
      'GET /api/auth/me': () => jsonResponse(body),
    });
    renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'Today', level: 1 })).toBeTruthy();
    expect(location()).toBe('/today');
    expect(screen.getByTestId('user-email').textContent).toBe(USER.email);
  });

  it('then exchanges the stored token for a fresh one, so a daily-used app never expires', async () => {
    storeSession();
    const fetchMock = mockFetch({ 'GET /api/version': version, ...sessionRoutes(USER, 'fresh-token') });
    renderApp('/today');
    await screen.findByRole('heading', { name: 'Today', level: 1 });
    await waitFor(() => expect(localStorage.getItem('token')).toBe('fresh-token'));
    const refresh = fetchMock.mock.calls.find(([url]) => requestUrl(url) === '/api/auth/refresh');
    expect(sentJson(refresh?.[1])).toEqual({ token: 'stored-token' });
    const order = fetchMock.mock.calls.map(([url]) => requestUrl(url)).filter((url) => url.startsWith('/api/auth'));
    expect(order).toEqual(['/api/auth/me', '/api/auth/refresh']);
  });

  it('signs out when the token refresh fails', async () => {
    storeSession();
    mockFetch({
      'GET /api/version': version,
      ...sessionRoutes(USER),
      'POST /api/auth/refresh': () => jsonResponse({ success: false, code: 'session_expired', message: 'Invalid or expired session' }, 401),
    });
    renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(location()).toBe('/login');
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
  });

  it('signs out when a signed-in call is refused (the session ended elsewhere)', async () => {
    storeSession();
    mockFetch({
      'GET /api/version': version,
      ...sessionRoutes(USER, 'stored-token'),
      'GET /api/auth/2fa/status': () => jsonResponse({ success: false, code: 'session_expired', message: 'Invalid or expired session' }, 401),
    });
    renderApp('/settings?section=security');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(localStorage.getItem('token')).toBeNull();
  });
});

describe('guard', () => {
  it('shows the loading screen while the session is checked, then redirects to /login', async () => {
    storeSession();
    const me = deferred<Response>();
    mockFetch({ 'GET /api/version': version, 'GET /api/auth/me': () => me.promise });
    renderApp('/history');

    expect(screen.getByRole('status').textContent).toContain('Loading...');
    expect(screen.queryByRole('heading', { name: 'History' })).toBeNull();
    expect(location()).toBe('/history');

    me.resolve(jsonResponse({ success: false, code: 'authentication_required', message: 'Unauthorized' }, 401));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(location()).toBe('/login');
  });

  it('sends unknown paths to / (and so to /login when signed out)', async () => {
    mockFetch({ 'GET /api/version': version });
    renderApp('/no/such/page');
    await screen.findByRole('heading', { name: 'Welcome back' });
    expect(location()).toBe('/login');
  });

  it('keeps public pages public', async () => {
    mockFetch({ 'GET /api/version': version });
    renderApp('/notifications/take/abc123');
    // The server does not know the token (the mock answers 404): the page says so itself.
    expect(await screen.findByRole('heading', { name: 'Invalid Link' })).toBeTruthy();
    expect(location()).toBe('/notifications/take/abc123');
  });
});

describe('login', () => {
  it('signs in from a page opened while signed out and goes back to it', async () => {
    const { default: userEvent } = await import('@testing-library/user-event');
    mockFetch({
      'GET /api/version': version,
      'POST /api/auth/2fa/check-login-requirements': () =>
        jsonResponse({ success: true, requires2FA: false, availableMethods: [], preferredMethod: null }),
      'POST /api/auth/login': () => jsonResponse({ success: true, data: { user: USER, token: 'new-token' } }),
    });
    // A reminder's notification opens /today; the guard sends the person to sign in first.
    renderApp('/today');
    await userEvent.type(await screen.findByLabelText('Email'), USER.email);
    await userEvent.type(screen.getByLabelText('Password'), 'secret1');
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }));

    await waitFor(() => expect(location()).toBe('/today'));
  });

  it('after signing out on purpose, signing in opens /medications, not the page signed out from', async () => {
    const { default: userEvent } = await import('@testing-library/user-event');
    storeSession();
    mockFetch({
      'GET /api/version': version,
      ...sessionRoutes(USER),
      'GET /api/medications': () => jsonResponse({ success: true, data: [] }),
      'POST /api/auth/logout': () => jsonResponse({ success: true }),
      'POST /api/auth/2fa/check-login-requirements': () =>
        jsonResponse({ success: true, requires2FA: false, availableMethods: [], preferredMethod: null }),
      'POST /api/auth/login': () => jsonResponse({ success: true, data: { user: USER, token: 'new-token' } }),
    });
    renderApp('/today');
    await screen.findByRole('heading', { name: 'Today', level: 1 });
    await userEvent.click(screen.getByRole('button', { name: 'Sign Out' }));
    await waitFor(() => expect(location()).toBe('/login'));

    await userEvent.type(await screen.findByLabelText('Email'), USER.email);
    await userEvent.type(screen.getByLabelText('Password'), 'secret1');
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('heading', { name: 'Medications', level: 1 })).toBeTruthy();
    expect(location()).toBe('/medications');
  });

  it('offers the identity provider, and back from it exchanges its code and opens the page asked for', async () => {
    const fetchMock = mockFetch({
      'GET /api/version': version,
      'GET /api/auth/providers': () => jsonResponse({ success: true, data: { password: true, oidc: { label: 'Authelia' } } }),
      'POST /api/auth/oidc/exchange': () => jsonResponse({ success: true, data: { user: USER, token: 'oidc-token' } }),
      ...sessionRoutes(USER),
    });
    const signedOut = renderApp('/today');
    const button = await screen.findByRole('link', { name: 'Sign in with Authelia' });
    expect(button.getAttribute('href')).toBe('/api/auth/oidc/start?return_to=%2Ftoday&lang=en');
    expect(screen.getByLabelText('Password')).toBeTruthy();

    // The provider's return, as the server's callback sends it.
    signedOut.unmount();
    renderApp('/login?oidc_code=one-time&return_to=%2Ftoday');
    await waitFor(() => expect(location()).toBe('/today'));
    expect(localStorage.getItem('token')).toBe('oidc-token');
    const exchanges = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/oidc/exchange');
    expect(exchanges.map(([, init]) => sentJson(init))).toEqual([{ code: 'one-time' }]);
  });

  it("says why the provider's sign-in was refused, and shows only its button when passwords are off", async () => {
    mockFetch({
      'GET /api/version': version,
      'GET /api/auth/providers': () => jsonResponse({ success: true, data: { password: false, oidc: { label: 'Authelia' } } }),
    });
    renderApp('/login?oidc_error=oidc_not_allowed');
    expect((await screen.findByRole('alert')).textContent).toBe(
      'There is no Pillbox account for you yet, and the administrator has not allowed new accounts from your identity provider.',
    );
    expect(await screen.findByRole('link', { name: 'Sign in with Authelia' })).toBeTruthy();
    expect(screen.queryByLabelText('Password')).toBeNull();
  });

  it('says when the provider has not verified the address, which neither links nor makes an account', async () => {
    mockFetch({
      'GET /api/version': version,
      'GET /api/auth/providers': () => jsonResponse({ success: true, data: { password: true, oidc: { label: 'Authelia' } } }),
    });
    renderApp('/login?oidc_error=oidc_email_unverified');
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Your identity provider has not verified your e-mail address, so Pillbox can neither link it to an account nor create one. Verify the address at the provider, then sign in again.',
    );
  });

  it('signs in with e-mail and password and opens /medications', async () => {
    const { default: userEvent } = await import('@testing-library/user-event');
    const fetchMock = mockFetch({
      'GET /api/version': version,
      'POST /api/auth/2fa/check-login-requirements': () =>
        jsonResponse({ success: true, requires2FA: false, availableMethods: [], preferredMethod: null }),
      'POST /api/auth/login': () => jsonResponse({ success: true, data: { user: USER, token: 'new-token' } }),
    });
    renderApp('/login');
    await userEvent.type(await screen.findByLabelText('Email'), USER.email);
    await userEvent.type(screen.getByLabelText('Password'), 'secret1');
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }));

    expect(await screen.findByRole('heading', { name: 'Medications', level: 1 })).toBeTruthy();
    expect(location()).toBe('/medications');
    expect(localStorage.getItem('token')).toBe('new-token');
    expect(JSON.parse(localStorage.getItem('user') ?? 'null')).toMatchObject({ email: USER.email });
    const loginCall = fetchMock.mock.calls.find(([url]) => requestUrl(url) === '/api/auth/login');
    expect(sentJson(loginCall?.[1])).toEqual({ email: USER.email, password: 'secret1' });
  });

  it('shows the server message when sign-in fails', async () => {
    const { default: userEvent } = await import('@testing-library/user-event');
    mockFetch({
      'GET /api/version': version,
      'POST /api/auth/2fa/check-login-requirements': () =>
        jsonResponse({ success: true, requires2FA: false, availableMethods: [], preferredMethod: null }),
      'POST /api/auth/login': () => jsonResponse({ success: false, code: 'invalid_credentials', message: 'Invalid email or password' }, 401),
    });
    renderApp('/login');
    await userEvent.type(await screen.findByLabelText('Email'), USER.email);
    await userEvent.type(screen.getByLabelText('Password'), 'wrong-pw');
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Invalid email or password');
    expect(location()).toBe('/login');
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('a start without a session asks whether sign-ups are open and the version at once, beside the providers', async () => {
    // A page that asks neither itself: the start's own requests, which the sign-in page then
    // finds answered instead of asking once it shows.
    const fetchMock = mockFetch({ 'GET /api/version': version });
    renderApp('/privacy-policy');
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/auth/registration')).toHaveLength(1));
    expect(requestsTo(fetchMock, 'GET', '/api/version')).toHaveLength(1);
    expect(requestsTo(fetchMock, 'GET', '/api/auth/providers')).toHaveLength(1);
  });

  it('appears whole: held until whether sign-ups are open and the version are known', async () => {
    const registration = deferred<Response>();
    const fetchMock = mockFetch({ 'GET /api/version': version, 'GET /api/auth/registration': () => registration.promise });
    renderApp('/login');
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/auth/registration')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('heading', { name: 'Welcome back' })).toBeNull();

    registration.resolve(jsonResponse({ success: true, data: { signups: 'open', open: true, invitations: false } }));
    await screen.findByRole('heading', { name: 'Welcome back' });
    // The line that used to arrive later (and move the form up) is there from the first frame.
    expect(screen.getByRole('link', { name: 'Create an account' })).toBeTruthy();
    expect(screen.getByTestId('version-label').textContent).toBe('1.0.0');
    expect(requestsTo(fetchMock, 'GET', '/api/auth/registration')).toHaveLength(1);
  });

  it('shows the server version in the footer, and dev when it cannot be fetched', async () => {
    mockFetch({ 'GET /api/version': version });
    const first = renderApp('/login');
    await waitFor(() => expect(screen.getByTestId('version-label').textContent).toBe('1.0.0'));
    first.unmount();

    mockFetch({ 'GET /api/version': () => new Response(null, { status: 500 }) });
    renderApp('/login');
    await screen.findByRole('heading', { name: 'Welcome back' });
    expect(screen.getByTestId('version-label').textContent).toBe('dev');
  });
});

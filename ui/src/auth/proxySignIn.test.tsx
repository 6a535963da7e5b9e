import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import de from '../i18n/locales/de.json';
import en from '../i18n/locales/en.json';
import es from '../i18n/locales/es.json';
import fr from '../i18n/locales/fr.json';
import { SETTINGS_STORAGE_KEY } from '../settings/appSettings';
import { jsonResponse, mockFetch, requestUrl, sessionRoutes } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';

const USER = {
  id: 7,
  email: 'ann@example.com',
  firstName: 'Ann',
  lastName: '',
  created_at: '2026-01-02T03:04:05Z',
};
const version = () => jsonResponse({ success: true, data: { version: '1.0.0' } });
const location = () => screen.getByTestId('location').textContent;
/** The server says a trusted proxy sent the request naming someone. */
const proxyNamesSomeone = () =>
  jsonResponse({ success: true, data: { password: true, oidc: null, proxy: true } });

/** A server behind an authenticating proxy that signed Ann in. */
function behindProxy() {
  return mockFetch({
    'GET /api/version': version,
    'GET /api/auth/providers': proxyNamesSomeone,
    'POST /api/auth/proxy-session': () => jsonResponse({ success: true, data: USER }),
    'GET /api/auth/me': () => jsonResponse({ success: true, data: USER }),
  });
}

describe('behind an authenticating proxy', () => {
  it('starts signed in as the person the proxy names, and sends no token of its own', async () => {
    const fetchMock = behindProxy();
    renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'Today', level: 1 })).toBeTruthy();
    expect(location()).toBe('/today');
    expect(screen.getByTestId('user-email').textContent).toBe(USER.email);
    expect(localStorage.getItem('token')).toBeNull();
    // A proxy with basic authentication would refuse the app's own Authorization header.
    for (const [, init] of fetchMock.mock.calls) {
      expect(new Headers(init?.headers).get('Authorization')).toBeNull();
    }
  });

  it.each([
    ['en', en],
    ['es', es],
    ['fr', fr],
    ['de', de],
  ])('signing out says that the proxy signs in again (%s)', async (language, texts) => {
    const { default: userEvent } = await import('@testing-library/user-event');
    // The app's own language setting, which it applies at start.
    localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify({ language }));
    await i18n.changeLanguage(language);
    const fetchMock = behindProxy();
    renderApp('/today');
    await screen.findByTestId('user-email');
    await userEvent.click(screen.getByRole('button', { name: texts.nav.signOut }));

    await waitFor(() => expect(location()).toBe('/login'));
    expect((await screen.findByRole('status')).textContent).toBe(texts.login.proxySignedOut);
    expect(localStorage.getItem('user')).toBeNull();
    // No token, so nothing to end on the server.
    expect(fetchMock.mock.calls.some(([url]) => requestUrl(url) === '/api/auth/logout')).toBe(false);
  });

  it('says nothing of a proxy when a password session signs out', async () => {
    const { default: userEvent } = await import('@testing-library/user-event');
    localStorage.setItem('token', 'password-token');
    localStorage.setItem('user', JSON.stringify(USER));
    mockFetch({
      'GET /api/version': version,
      'POST /api/auth/logout': () => jsonResponse({ success: true, message: 'Signed out' }),
      ...sessionRoutes(USER, 'password-token'),
    });
    renderApp('/today');
    await screen.findByTestId('user-email');
    await userEvent.click(screen.getByRole('button', { name: 'Sign Out' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(screen.queryByText(en.login.proxySignedOut)).toBeNull();
  });

  it('tells a person the proxy signed in without an account here to ask the administrator', async () => {
    mockFetch({
      'GET /api/version': version,
      'GET /api/auth/providers': proxyNamesSomeone,
      'POST /api/auth/proxy-session': () =>
        jsonResponse(
          {
            success: false,
            code: 'proxy_registration_not_allowed',
            message: 'There is no Pillbox account for bob@example.com.',
            params: { identity: 'bob@example.com' },
          },
          403,
        ),
    });
    renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(location()).toBe('/login');
    expect(screen.getByRole('alert').textContent).toBe(
      'Your sign-in proxy signed you in as bob@example.com, but there is no Pillbox account for it. ' +
        'Ask the administrator to create your account, or to let the proxy create accounts.',
    );
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('asks no proxy session where no proxy names anyone, and asks what the sign-in page offers once', async () => {
    const fetchMock = mockFetch({
      'GET /api/version': version,
      'GET /api/auth/providers': () =>
        jsonResponse({ success: true, data: { password: true, oidc: { label: 'Authelia' }, proxy: false } }),
      'POST /api/auth/proxy-session': () => jsonResponse({ success: true, data: USER }),
    });
    renderApp('/today');
    expect(await screen.findByRole('link', { name: 'Sign in with Authelia' })).toBeTruthy();
    const asked = fetchMock.mock.calls.map(([url]) => new URL(requestUrl(url), 'http://localhost').pathname);
    expect(asked).not.toContain('/api/auth/proxy-session');
    expect(asked.filter((path) => path === '/api/auth/providers')).toHaveLength(1);
  });
});

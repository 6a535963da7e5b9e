import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { cancelled, fakeWebAuthn, removeFakeWebAuthn } from '../test/fakeWebAuthn';
import { jsonResponse, mockFetch, requestUrl, sentJson } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';

const USER = { id: 7, email: 'ann@example.com', firstName: 'Ann', lastName: '', created_at: '2026-01-02T03:04:05Z' };
const PASSWORD = 'correct horse';
const OPTIONS = {
  ceremony: 'ceremony-7',
  publicKey: { challenge: 'AAEC', rpId: 'localhost', allowCredentials: [], userVerification: 'required', timeout: 300000 },
};
/** The assertion the fake browser gives, as the app sends it. */
const ASSERTION = {
  id: 'AQID',
  rawId: 'AQID',
  type: 'public-key',
  response: { authenticatorData: 'CA', clientDataJSON: 'CQ', signature: 'Cgs', userHandle: 'DA0O' },
  extensions: {},
};
const location = () => screen.getByTestId('location').textContent;

function server(passkeys: boolean, extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/version': () => jsonResponse({ success: true, data: { version: '1.0.0' } }),
    'GET /api/auth/providers': () => jsonResponse({ success: true, data: { password: true, oidc: null, proxy: false, passkeys } }),
    'GET /api/auth/registration': () => jsonResponse({ success: true, data: { signups: 'closed', open: false, invitations: false } }),
    'POST /api/auth/passkeys/login/options': () => jsonResponse({ success: true, data: OPTIONS }),
    'POST /api/auth/passkeys/login': () => jsonResponse({ success: true, data: { user: USER, token: 'passkey-token' } }),
    'GET /api/auth/me': () => jsonResponse({ success: true, data: USER }),
    ...extra,
  });
}

const posted = (fetchMock: ReturnType<typeof mockFetch>, path: string) =>
  fetchMock.mock.calls.filter(([url, init]) => init?.method === 'POST' && requestUrl(url).endsWith(path)).map(([, init]) => sentJson(init));

afterEach(removeFakeWebAuthn);

describe('signing in with a passkey', () => {
  it('is offered only when the server has passkeys', async () => {
    fakeWebAuthn();
    server(false);
    renderApp('/login');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    await screen.findByLabelText('Email');
    expect(screen.queryByRole('button', { name: 'Sign in with a passkey' })).toBeNull();
  });

  it('signs in with no e-mail address typed: the browser’s passkey answers the server’s challenge', async () => {
    const browser = fakeWebAuthn();
    const fetchMock = server(true);
    renderApp('/login');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await waitFor(() => expect(location()).toBe('/medications'));
    expect(localStorage.getItem('token')).toBe('passkey-token');
    const publicKey = browser.get.mock.calls[0]?.[0]?.publicKey;
    expect(new Uint8Array(publicKey?.challenge as ArrayBuffer)).toEqual(new Uint8Array([0, 1, 2]));
    expect(posted(fetchMock, '/api/auth/passkeys/login')).toEqual([{ ceremony: 'ceremony-7', credential: ASSERTION }]);
    expect(posted(fetchMock, '/api/auth/login')).toEqual([]);
  });

  it('says so when the prompt is cancelled, and says the server’s refusal', async () => {
    const browser = fakeWebAuthn();
    browser.get.mockRejectedValueOnce(cancelled());
    const fetchMock = server(true, {
      'POST /api/auth/passkeys/login': () =>
        jsonResponse({ success: false, code: 'passkey_invalid', message: "The passkey's answer could not be verified" }, 401),
    });
    renderApp('/login');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'No passkey was used: the request was cancelled or timed out. Try again when your device is ready.',
    );
    expect(posted(fetchMock, '/api/auth/passkeys/login')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toBe('The passkey could not be verified. Try again, or use another way to sign in.'),
    );
    expect(location()).toBe('/login');
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('is the second factor after the password when the account has one', async () => {
    const browser = fakeWebAuthn();
    const fetchMock = server(true, {
      'POST /api/auth/2fa/check-login-requirements': () =>
        jsonResponse({ success: true, requires2FA: true, availableMethods: ['totp', 'passkey'], preferredMethod: 'totp' }),
      'POST /api/auth/login': () => jsonResponse({ success: true, data: { user: USER, token: 'two-step-token' } }),
    });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email'), USER.email);
    await user.type(screen.getByLabelText('Password'), PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    // The code step: the app's code, or the passkey instead (not one of the code choices).
    expect(await screen.findByText('Or confirm with one of your passkeys.')).toBeTruthy();
    expect(screen.queryByRole('radio')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Use a passkey instead' }));
    await waitFor(() => expect(location()).toBe('/medications'));
    expect(browser.get).toHaveBeenCalledTimes(1);
    expect(posted(fetchMock, '/api/auth/login')).toEqual([
      { email: USER.email, password: PASSWORD, passkey: { ceremony: 'ceremony-7', credential: ASSERTION } },
    ]);
    expect(posted(fetchMock, '/api/auth/passkeys/login')).toEqual([]);
    expect(posted(fetchMock, '/api/auth/2fa/generate-otp')).toEqual([]);
  });
});

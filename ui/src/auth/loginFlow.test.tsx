import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api';
import { disabledState } from '../test/disabledReason';
import { deferred, jsonResponse, mockFetch, requestUrl, sentJson, type Route } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';
import { LoginFailure, initialLoginView, loginViewReducer, signInWithPassword } from './loginFlow';

const USER = { id: 3, email: 'kim@example.com', firstName: null, lastName: null };
const PASSWORD = 'secret-pw';
const version = () => jsonResponse({ success: true, data: { version: '1.0.0' } });
const neutral = () => jsonResponse({ success: true, requires2FA: false, availableMethods: [], preferredMethod: null });
const needsCode = (availableMethods: string[], preferredMethod: string | null) => () =>
  jsonResponse({ success: true, requires2FA: true, availableMethods, preferredMethod });
const signedIn = () => jsonResponse({ success: true, data: { user: USER, token: 'session-token' } });

type FetchMock = ReturnType<typeof mockFetch>;
const callsTo = (fetchMock: FetchMock, path: string) =>
  fetchMock.mock.calls.filter(([url]) => requestUrl(url) === path).map(([, init]) => sentJson(init));

describe('signInWithPassword (spec §4 login flow)', () => {
  it('asks for the requirements with the password and signs in when no code is needed', async () => {
    const fetchMock = mockFetch({ 'POST /api/auth/2fa/check-login-requirements': neutral, 'POST /api/auth/login': signedIn });
    const outcome = await signInWithPassword(USER.email, PASSWORD);
    expect(outcome).toEqual({ kind: 'signedIn', session: { user: USER, token: 'session-token' } });
    expect(callsTo(fetchMock, '/api/auth/2fa/check-login-requirements')).toEqual([{ email: USER.email, password: PASSWORD }]);
    expect(callsTo(fetchMock, '/api/auth/login')).toEqual([{ email: USER.email, password: PASSWORD }]);
  });

  it('hands over to the code step without signing in when two-factor is required', async () => {
    const fetchMock = mockFetch({
      'POST /api/auth/2fa/check-login-requirements': needsCode(['email', 'totp'], 'totp'),
      'POST /api/auth/login': signedIn,
    });
    await expect(signInWithPassword(USER.email, PASSWORD)).resolves.toEqual({
      kind: 'twoFactorRequired',
      methods: ['email', 'totp'],
      preferredMethod: 'totp',
    });
    expect(callsTo(fetchMock, '/api/auth/login')).toEqual([]);
  });

  it('turns the 403 "verify your e-mail" answer into an outcome', async () => {
    mockFetch({
      'POST /api/auth/2fa/check-login-requirements': neutral,
      'POST /api/auth/login': () =>
        jsonResponse(
          { success: false, code: 'email_not_verified', message: 'Please verify your email address before signing in', requiresEmailVerification: true },
          403,
        ),
    });
    await expect(signInWithPassword(USER.email, PASSWORD)).resolves.toEqual({ kind: 'verificationRequired' });
  });

  it('still reaches the code step when the sign-in itself asks for a code', async () => {
    mockFetch({
      'POST /api/auth/2fa/check-login-requirements': neutral,
      'POST /api/auth/login': () =>
        jsonResponse(
          {
            success: false,
            code: 'two_factor_required', message: 'Two-factor authentication code required',
            requires2FA: true,
            availableMethods: ['totp'],
            preferredMethod: 'totp',
          },
          401,
        ),
    });
    await expect(signInWithPassword(USER.email, PASSWORD)).resolves.toEqual({
      kind: 'twoFactorRequired',
      methods: ['totp'],
      preferredMethod: 'totp',
    });
  });

  it('says which step failed', async () => {
    mockFetch({
      'POST /api/auth/2fa/check-login-requirements': () => new Response(null, { status: 502 }),
    });
    const checkFailure = await signInWithPassword(USER.email, PASSWORD).catch((error: unknown) => error);
    expect(checkFailure).toBeInstanceOf(LoginFailure);
    expect((checkFailure as LoginFailure).stage).toBe('requirements');

    mockFetch({
      'POST /api/auth/2fa/check-login-requirements': neutral,
      'POST /api/auth/login': () => jsonResponse({ success: false, code: 'invalid_credentials', message: 'Invalid email or password' }, 401),
    });
    const loginFailure = await signInWithPassword(USER.email, 'wrong').catch((error: unknown) => error);
    expect(loginFailure).toBeInstanceOf(LoginFailure);
    expect((loginFailure as LoginFailure).stage).toBe('login');
    expect((loginFailure as LoginFailure).message).toBe('Invalid email or password');
    expect((loginFailure as LoginFailure).cause).toBeInstanceOf(ApiError);
  });
});

describe('loginViewReducer', () => {
  it('starts the code step with the preferred method, else the first offered', () => {
    const withPreferred = loginViewReducer(initialLoginView, {
      type: 'TWO_FACTOR_REQUIRED',
      methods: ['email', 'totp'],
      preferredMethod: 'totp',
    });
    expect(withPreferred).toEqual({ step: 'code', methods: ['email', 'totp'], preferredMethod: 'totp', method: 'totp' });
    const withoutPreferred = loginViewReducer(initialLoginView, {
      type: 'TWO_FACTOR_REQUIRED',
      methods: ['email'],
      preferredMethod: null,
    });
    expect(withoutPreferred).toMatchObject({ step: 'code', method: 'email' });
  });

  it('switches only between offered methods, and Back resets', () => {
    const view = loginViewReducer(initialLoginView, {
      type: 'TWO_FACTOR_REQUIRED',
      methods: ['totp'],
      preferredMethod: 'totp',
    });
    expect(loginViewReducer(view, { type: 'METHOD_CHOSEN', method: 'email' })).toBe(view);
    expect(loginViewReducer(view, { type: 'BACK_TO_LOGIN' })).toEqual({ step: 'credentials' });
    expect(loginViewReducer(initialLoginView, { type: 'METHOD_CHOSEN', method: 'totp' })).toBe(initialLoginView);
  });
});

async function enterCredentials() {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Email'), USER.email);
  await user.type(screen.getByLabelText('Password'), PASSWORD);
  await user.click(screen.getByRole('button', { name: 'Sign In' }));
  return user;
}

function loginServer(routes: Record<string, Route>) {
  return mockFetch({ 'GET /api/version': version, ...routes });
}

describe('login screen', () => {
  it('e-mail code: sends the code, says so, and signs in with email + password + code', async () => {
    const fetchMock = loginServer({
      'POST /api/auth/2fa/check-login-requirements': needsCode(['email', 'totp'], 'email'),
      'POST /api/auth/2fa/generate-otp': () => jsonResponse({ success: true, message: 'sent' }),
      'POST /api/auth/login': signedIn,
    });
    renderApp('/login');
    const user = await enterCredentials();

    expect(await screen.findByRole('heading', { name: 'Two-factor authentication' })).toBeTruthy();
    expect(screen.getByText(`We sent a 6-digit code to your email (${USER.email}). Enter it below.`)).toBeTruthy();
    const methods = screen.getByRole('group', { name: 'Verification method' });
    expect(within(methods).getByRole('radio', { name: 'Email (Preferred)' })).toHaveProperty('checked', true);
    expect(within(methods).getByRole('radio', { name: 'Authenticator app' })).toHaveProperty('checked', false);
    await waitFor(() =>
      expect(callsTo(fetchMock, '/api/auth/2fa/generate-otp')).toEqual([
        { email: USER.email, password: PASSWORD, method: 'email' },
      ]),
    );
    expect(screen.getByRole('button', { name: 'Resend code' })).toBeTruthy();

    await user.click(screen.getByLabelText('Digit 1 of 6'));
    await user.paste('123 456');
    expect(await screen.findByRole('heading', { name: 'Medications', level: 1 })).toBeTruthy();
    expect(callsTo(fetchMock, '/api/auth/login')).toEqual([{ email: USER.email, password: PASSWORD, code: '123456' }]);
    expect(localStorage.getItem('token')).toBe('session-token');
  });

  it('authenticator only: no method choice, no Resend code, nothing sent', async () => {
    const fetchMock = loginServer({ 'POST /api/auth/2fa/check-login-requirements': needsCode(['totp'], 'totp') });
    renderApp('/login');
    await enterCredentials();
    expect(await screen.findByText('Open your authenticator app and enter the 6-digit code it shows for Pillbox.')).toBeTruthy();
    expect(screen.queryByRole('group', { name: 'Verification method' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Resend code' })).toBeNull();
    expect(callsTo(fetchMock, '/api/auth/2fa/generate-otp')).toEqual([]);
  });

  it('switching to e-mail sends a new code; switching to the app sends nothing', async () => {
    const fetchMock = loginServer({
      'POST /api/auth/2fa/check-login-requirements': needsCode(['email', 'totp'], 'totp'),
      'POST /api/auth/2fa/generate-otp': () => jsonResponse({ success: true, message: 'sent' }),
    });
    renderApp('/login');
    const user = await enterCredentials();
    await user.click(await screen.findByRole('radio', { name: 'Email' }));
    await waitFor(() => expect(callsTo(fetchMock, '/api/auth/2fa/generate-otp')).toHaveLength(1));
    expect(await screen.findByRole('button', { name: 'Resend code' })).toBeTruthy();
    await user.click(screen.getByRole('radio', { name: 'Authenticator app (Preferred)' }));
    expect(screen.queryByRole('button', { name: 'Resend code' })).toBeNull();
    expect(callsTo(fetchMock, '/api/auth/2fa/generate-otp')).toHaveLength(1);
  });

  it('a wrong code shows the server message and empties the boxes; Back returns to the form', async () => {
    loginServer({
      'POST /api/auth/2fa/check-login-requirements': needsCode(['totp'], 'totp'),
      'POST /api/auth/login': () => jsonResponse({ success: false, code: 'invalid_code', message: 'Invalid verification code' }, 401),
    });
    renderApp('/login');
    const user = await enterCredentials();
    await user.click(await screen.findByLabelText('Digit 1 of 6'));
    // Pasted whole, as a code copied from an authenticator is: typing it key by key waits on
    // Preact moving the focus after each render, which a loaded machine can outlast (the
    // boxes' own focus moves are CodeInput.test.tsx's).
    await user.paste('999999');
    expect((await screen.findByRole('alert')).textContent).toBe('Invalid verification code');
    await waitFor(() => expect(screen.getByLabelText<HTMLInputElement>('Digit 1 of 6').value).toBe(''));
    expect(screen.getByTestId('location').textContent).toBe('/login');

    await user.click(screen.getByRole('button', { name: '← Back to login' }));
    expect(screen.getByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(screen.getByLabelText<HTMLInputElement>('Email').value).toBe(USER.email);
    expect(screen.getByLabelText<HTMLInputElement>('Password').value).toBe('');
  });

  it('while a code is being sent, Resend and the method choice say why they wait', async () => {
    const sent = deferred<Response>();
    loginServer({
      'POST /api/auth/2fa/check-login-requirements': needsCode(['email', 'totp'], 'email'),
      'POST /api/auth/2fa/generate-otp': () => sent.promise,
    });
    renderApp('/login');
    await enterCredentials();
    const resend = await screen.findByRole('button', { name: 'Resend code' });
    const app = screen.getByRole('radio', { name: 'Authenticator app' });
    const waiting = { disabled: true, reason: 'Sending a code...', title: 'Sending a code...' };
    await waitFor(() => expect(disabledState(resend)).toEqual(waiting));
    expect(disabledState(app)).toEqual(waiting);

    sent.resolve(jsonResponse({ success: true, message: 'sent' }));
    const ready = { disabled: false, reason: null, title: null };
    await waitFor(() => expect(disabledState(resend)).toEqual(ready));
    expect(disabledState(app)).toEqual(ready);
  });

  it('a backup code: Verify says what it needs, then why it waits while the code is checked', async () => {
    const checked = deferred<Response>();
    loginServer({
      'POST /api/auth/2fa/check-login-requirements': needsCode(['totp'], 'totp'),
      'POST /api/auth/login': () => checked.promise,
    });
    renderApp('/login');
    const user = await enterCredentials();
    await user.click(await screen.findByRole('button', { name: 'Use a backup code instead' }));
    const verify = screen.getByRole('button', { name: 'Verify' });
    const needed = 'Enter a backup code to continue.';
    expect(disabledState(verify)).toEqual({ disabled: true, reason: needed, title: needed });
    expect(screen.getByTestId('disabled-reason').textContent).toBe(needed);

    await user.type(screen.getByLabelText('Backup code'), 'ABCD1234');
    expect(disabledState(verify)).toEqual({ disabled: false, reason: null, title: null });
    await user.click(verify);
    const checking = screen.getByRole('button', { name: 'Verifying...' });
    expect(disabledState(checking)).toEqual({ disabled: true, reason: 'Verifying...', title: 'Verifying...' });
    expect(screen.queryByTestId('disabled-reason')).toBeNull();
    checked.resolve(jsonResponse({ success: false, code: 'invalid_code', message: 'Invalid verification code' }, 401));
    expect((await screen.findByRole('alert')).textContent).toBe('Invalid verification code');
    expect(disabledState(screen.getByRole('button', { name: 'Verify' }))).toEqual({
      disabled: false,
      reason: null,
      title: null,
    });
  });

  it('an unverified address goes to /email-confirmation with the address', async () => {
    loginServer({
      'POST /api/auth/2fa/check-login-requirements': neutral,
      'POST /api/auth/login': () =>
        jsonResponse(
          { success: false, code: 'email_not_verified', message: 'Please verify your email address before signing in', requiresEmailVerification: true },
          403,
        ),
    });
    renderApp('/login');
    await enterCredentials();
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/email-confirmation'));
    expect(screen.getByTestId('location-search').textContent).toBe(`?email=${encodeURIComponent(USER.email)}`);
  });

  it('falls back to the spec texts when the server gives no message', async () => {
    loginServer({ 'POST /api/auth/2fa/check-login-requirements': () => new Response(null, { status: 502 }) });
    renderApp('/login');
    await enterCredentials();
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to check login requirements');
  });

  it('shows a note after verification (?verified=true)', async () => {
    loginServer({});
    renderApp('/login?verified=true');
    expect(await screen.findByText('Your email address is verified. You can sign in now.')).toBeTruthy();
  });
});

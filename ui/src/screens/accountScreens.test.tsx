import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { disabledState } from '../test/disabledReason';
import { jsonResponse, mockFetch, requestUrl, sentJson } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';

const USER = { id: 4, email: 'new@example.com', firstName: null, lastName: null };
const version = () => jsonResponse({ success: true, data: { version: '1.0.0' } });
const location = () => screen.getByTestId('location').textContent;
const search = () => screen.getByTestId('location-search').textContent;

afterEach(() => {
  vi.useRealTimers();
});

async function fillRegistration(email: string, password: string, confirmation: string) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.type(screen.getByLabelText('Confirm password'), confirmation);
  await user.click(screen.getByRole('button', { name: 'Create Account' }));
}

describe('register', () => {
  it('checks that the passwords match and are long enough before asking the server', async () => {
    const fetchMock = mockFetch({ 'GET /api/version': version });
    renderApp('/register');
    await fillRegistration(USER.email, 'secret1', 'secret2');
    expect(screen.getByRole('alert').textContent).toBe('Passwords do not match');
    await userEvent.clear(screen.getByLabelText('Password'));
    await userEvent.clear(screen.getByLabelText('Confirm password'));
    await userEvent.type(screen.getByLabelText('Password'), 'abc');
    await userEvent.type(screen.getByLabelText('Confirm password'), 'abc');
    await userEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    expect(screen.getByRole('alert').textContent).toBe('Password must be at least 6 characters long');
    expect(fetchMock.mock.calls.some(([url]) => requestUrl(url) === '/api/auth/register')).toBe(false);
  });

  it('goes to /email-confirmation when the address must be verified; the confirmation is not sent', async () => {
    const fetchMock = mockFetch({
      'GET /api/version': version,
      'POST /api/auth/register': () =>
        jsonResponse(
          { success: true, message: 'Account created.', data: { user: USER, requiresEmailVerification: true } },
          201,
        ),
    });
    renderApp('/register');
    await fillRegistration(USER.email, 'secret1', 'secret1');
    await waitFor(() => expect(location()).toBe('/email-confirmation'));
    expect(search()).toBe('?email=new%40example.com');
    expect(localStorage.getItem('token')).toBeNull();
    const call = fetchMock.mock.calls.find(([url]) => requestUrl(url) === '/api/auth/register');
    expect(sentJson(call?.[1])).toEqual({ email: USER.email, password: 'secret1', language: 'en' });
  });

  it('signs in and opens /medications when no verification is needed', async () => {
    mockFetch({
      'GET /api/version': version,
      'POST /api/auth/register': () => jsonResponse({ success: true, data: { user: USER, token: 'tok' } }, 201),
    });
    renderApp('/register');
    await fillRegistration(USER.email, 'secret1', 'secret1');
    expect(await screen.findByRole('heading', { name: 'Medications', level: 1 })).toBeTruthy();
    expect(localStorage.getItem('token')).toBe('tok');
  });

  it('shows the server message, translated', async () => {
    mockFetch({
      'GET /api/version': version,
      'POST /api/auth/register': () =>
        jsonResponse({ success: false, code: 'email_taken', message: 'An account with this email already exists' }, 409),
    });
    localStorage.setItem('dosage_app_settings', JSON.stringify({ language: 'es' }));
    renderApp('/register');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Correo electrónico'), USER.email);
    await user.type(screen.getByLabelText('Contraseña'), 'secret1');
    await user.type(screen.getByLabelText('Confirmar contraseña'), 'secret1');
    await user.click(screen.getByRole('button', { name: 'Crear cuenta' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Ya existe una cuenta con este correo electrónico');
  });
});

describe('e-mail confirmation', () => {
  it('shows "Checking your email..." for one second, then the address', () => {
    vi.useFakeTimers();
    mockFetch({ 'GET /api/version': version });
    renderApp('/email-confirmation?email=new%40example.com');
    expect(screen.getByRole('status').textContent).toBe('Checking your email...');
    act(() => {
      vi.advanceTimersByTime(999);
    });
    expect(screen.getByText('Checking your email...')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Check your email' })).toBeNull();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.queryByText('Checking your email...')).toBeNull();
    expect(screen.getByRole('heading', { name: 'Check your email' })).toBeTruthy();
    expect(screen.getByTestId('confirmation-email').textContent).toBe(USER.email);
  });

  it('resends the verification e-mail, disabled while sending', async () => {
    let release: (response: Response) => void = () => undefined;
    const fetchMock = mockFetch({
      'GET /api/version': version,
      'POST /api/auth/resend-verification': () =>
        new Promise<Response>((resolve) => {
          release = resolve;
        }),
    });
    renderApp('/email-confirmation?email=new%40example.com');
    const button = await screen.findByRole('button', { name: 'Resend Verification Email' });
    await userEvent.click(button);
    expect(screen.getByRole('button', { name: 'Sending...' })).toHaveProperty('disabled', true);
    release(jsonResponse({ success: true, message: 'If an account...' }));
    // The server cannot say the mail went out (it sends in the background), so neither do we.
    expect((await screen.findByRole('status')).textContent).toContain('A new link was requested.');
    expect(screen.queryByText(/sent successfully/)).toBeNull();
    const call = fetchMock.mock.calls.find(([url]) => requestUrl(url) === '/api/auth/resend-verification');
    expect(sentJson(call?.[1])).toEqual({ email: USER.email });
  });

  it('shows the fallback when the resend fails without a message', async () => {
    mockFetch({
      'GET /api/version': version,
      'POST /api/auth/resend-verification': () => new Response(null, { status: 502 }),
    });
    renderApp('/email-confirmation?email=new%40example.com');
    await userEvent.click(await screen.findByRole('button', { name: 'Resend Verification Email' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to resend verification email');
  });

  it('without an address: the button is disabled, the spec message shows and the button points to it', async () => {
    mockFetch({ 'GET /api/version': version });
    renderApp('/email-confirmation');
    const button = await screen.findByRole('button', { name: 'Resend Verification Email' });
    const why = 'No email address found. Please try registering again.';
    expect(screen.getByRole('alert').textContent).toBe(why);
    // The disabled button points to the message that says why.
    expect(disabledState(button)).toEqual({ disabled: true, reason: why, title: why });
    await userEvent.click(screen.getByRole('button', { name: 'Back to Login' }));
    expect(location()).toBe('/login');
  });
});

describe('verify e-mail', () => {
  it('verifies the token, then Continue to Login opens /login?verified=true', async () => {
    const fetchMock = mockFetch({
      'GET /api/version': version,
      'GET /api/auth/verify-email/tok-123': () =>
        jsonResponse({ success: true, emailVerified: true, message: 'Email verified successfully' }),
    });
    renderApp('/verify-email/tok-123');
    expect(screen.getByRole('status').textContent).toBe('Verifying your email...');
    expect(await screen.findByRole('heading', { name: 'Email Verified!' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Continue to Login' }));
    expect(location()).toBe('/login');
    expect(search()).toBe('?verified=true');
    expect(screen.getByText('Your email address is verified. You can sign in now.')).toBeTruthy();
    expect(fetchMock.mock.calls.filter(([url]) => requestUrl(url).startsWith('/api/auth/verify-email'))).toHaveLength(1);
  });

  it('an invalid or expired link fails with both ways onward', async () => {
    mockFetch({
      'GET /api/version': version,
      'GET /api/auth/verify-email/old-token': () =>
        jsonResponse({ success: false, emailVerified: false, code: 'invalid_token', message: 'Invalid or expired verification link' }, 400),
    });
    renderApp('/verify-email/old-token');
    expect(await screen.findByRole('heading', { name: 'Verification Failed' })).toBeTruthy();
    expect(screen.getByText('The verification link may have expired or is invalid.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Go to Login' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Request New Verification Email' }));
    expect(location()).toBe('/email-confirmation');
  });

  it('without a token says "No verification token provided"', () => {
    mockFetch({ 'GET /api/version': version });
    renderApp('/verify-email');
    expect(screen.getByText('No verification token provided')).toBeTruthy();
  });
});

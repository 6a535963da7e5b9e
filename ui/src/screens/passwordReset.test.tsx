import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch, requestUrl, sentJson } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';

const version = () => jsonResponse({ success: true, data: { version: '1.0.0' } });
const registration = (open: boolean, invitations: boolean) => () =>
  jsonResponse({ success: true, data: { signups: open ? 'open' : 'closed', open, invitations } });
const location = () => screen.getByTestId('location').textContent;

afterEach(() => localStorage.clear());

describe('the sign-in page', () => {
  it('offers "Forgot password?" and "Create an account" while sign-ups are open', async () => {
    mockFetch({ 'GET /api/version': version, 'GET /api/auth/registration': registration(true, true) });
    renderApp('/login');
    expect((await screen.findByRole('link', { name: 'Forgot password?' })).getAttribute('href')).toBe(
      '/forgot-password',
    );
    expect((await screen.findByRole('link', { name: 'Create an account' })).getAttribute('href')).toBe('/register');
  });

  it('offers no "Create an account" when sign-ups are closed', async () => {
    const fetchMock = mockFetch({ 'GET /api/version': version, 'GET /api/auth/registration': registration(false, true) });
    renderApp('/login');
    await screen.findByRole('link', { name: 'Forgot password?' });
    await waitFor(() =>
      expect(fetchMock.mock.calls.some(([url]) => requestUrl(url) === '/api/auth/registration')).toBe(true),
    );
    await waitFor(() => expect(screen.queryByText(/Don't have an account/)).toBeNull());
    expect(screen.queryByRole('link', { name: 'Create an account' })).toBeNull();
  });

  it('offers it past the first account to someone who opened an invitation', async () => {
    localStorage.setItem('pillbox_invitation', 'tok_123');
    mockFetch({ 'GET /api/version': version, 'GET /api/auth/registration': registration(false, true) });
    renderApp('/login');
    expect(await screen.findByRole('link', { name: 'Create an account' })).toBeTruthy();
  });
});

describe('the registration page', () => {
  it('says sign-ups are closed instead of showing a form', async () => {
    mockFetch({ 'GET /api/version': version, 'GET /api/auth/registration': registration(false, false) });
    renderApp('/register');
    expect(await screen.findByRole('heading', { name: 'Sign-ups are closed' })).toBeTruthy();
    expect(screen.getByTestId('registration-closed').textContent).toBe(
      'This server does not take new accounts. Ask its administrator to make one for you, or sign in if you have an account.',
    );
    expect(screen.queryByLabelText('Email')).toBeNull();
  });

  it('points to the invitation link where only invitations open sign-ups, in German', async () => {
    localStorage.setItem('dosage_app_settings', JSON.stringify({ language: 'de' }));
    mockFetch({ 'GET /api/version': version, 'GET /api/auth/registration': registration(false, true) });
    renderApp('/register');
    expect(await screen.findByRole('heading', { name: 'Registrierung geschlossen' })).toBeTruthy();
    expect(screen.getByTestId('registration-closed').textContent).toContain(
      'Öffnen Sie zuerst den Link aus der Einladungs-E-Mail',
    );
  });
});

async function askForLink(email: string) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Email'), email);
  await user.click(screen.getByRole('button', { name: 'Send link' }));
}

describe('forgot password', () => {
  it('says a link is on its way, for any address', async () => {
    const fetchMock = mockFetch({
      'GET /api/version': version,
      'POST /api/auth/forgot-password': () =>
        jsonResponse({ success: true, message: 'If an account…', data: { emailAvailable: true } }),
    });
    renderApp('/forgot-password');
    expect(screen.getByRole('heading', { name: 'Forgot your password?' })).toBeTruthy();
    await askForLink('ann@example.org');
    expect((await screen.findByTestId('forgot-outcome')).textContent).toBe(
      'If ann@example.org has a Pillbox account, a link to choose a new password is on its way. It works once, for 1 hour. Check your spam folder if it does not arrive.',
    );
    const call = fetchMock.mock.calls.find(([url]) => requestUrl(url) === '/api/auth/forgot-password');
    expect(sentJson(call?.[1])).toEqual({ email: 'ann@example.org' });
  });

  it('says when this server cannot send e-mail, and who can help', async () => {
    mockFetch({
      'GET /api/version': version,
      'POST /api/auth/forgot-password': () =>
        jsonResponse({ success: true, message: 'If an account…', data: { emailAvailable: false } }),
    });
    renderApp('/forgot-password');
    await askForLink('ann@example.org');
    expect(await screen.findByRole('heading', { name: 'This server cannot send e-mail' })).toBeTruthy();
    expect(screen.getByTestId('forgot-outcome').textContent).toContain('pillbox reset-password');
  });
});

async function chooseNewPassword(password: string, confirmation: string) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('New password'), password);
  await user.type(screen.getByLabelText('Confirm new password'), confirmation);
  await user.click(screen.getByRole('button', { name: 'Set new password' }));
}

describe('reset password', () => {
  it('sets the password and ends on the sign-in page saying so', async () => {
    const fetchMock = mockFetch({
      'GET /api/version': version,
      'POST /api/auth/reset-password': () => jsonResponse({ success: true, message: 'Password changed.' }),
    });
    renderApp('/reset-password/tok_abc');
    await chooseNewPassword('new secret', 'new secret');
    await waitFor(() => expect(location()).toBe('/login'));
    expect(
      await screen.findByText('Your password is changed and every device was signed out. Sign in with your new password.'),
    ).toBeTruthy();
    const call = fetchMock.mock.calls.find(([url]) => requestUrl(url) === '/api/auth/reset-password');
    expect(sentJson(call?.[1])).toEqual({ token: 'tok_abc', password: 'new secret' });
  });

  it('checks the password rules before asking the server', async () => {
    const fetchMock = mockFetch({ 'GET /api/version': version });
    renderApp('/reset-password/tok_abc');
    await chooseNewPassword('abc', 'abc');
    expect(screen.getByRole('alert').textContent).toBe('Password must be at least 6 characters long');
    expect(fetchMock.mock.calls.some(([url]) => requestUrl(url) === '/api/auth/reset-password')).toBe(false);
  });

  it('explains a used or expired link in French and offers a new one', async () => {
    localStorage.setItem('dosage_app_settings', JSON.stringify({ language: 'fr' }));
    mockFetch({
      'GET /api/version': version,
      'POST /api/auth/reset-password': () =>
        jsonResponse(
          {
            success: false,
            code: 'reset_link_invalid',
            message: 'This link is invalid or has expired: ask for a new one',
          },
          400,
        ),
    });
    renderApp('/reset-password/tok_abc');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Nouveau mot de passe'), 'new secret');
    await user.type(screen.getByLabelText('Confirmer le nouveau mot de passe'), 'new secret');
    await user.click(screen.getByRole('button', { name: 'Enregistrer le mot de passe' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Ce lien est non valide ou a expiré : demandez-en un nouveau',
    );
    expect(screen.getByRole('link', { name: 'Demander un nouveau lien' }).getAttribute('href')).toBe(
      '/forgot-password',
    );
  });
});

import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch, requestUrl, sentJson, sessionRoutes } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';

const USER = { id: 3, email: 'kim@example.test', emailVerified: true, created_at: '2026-11-21T12:00:00Z' };
const version = () => jsonResponse({ success: true, data: { version: '1.0.0' } });
const OFFER = {
  link: 'link-secret',
  provider: 'Authelia',
  identity_email: 'kim@example.test',
  account_email: 'kim@example.test',
};
const location = () => screen.getByTestId('location').textContent;

describe('linking an identity provider to an existing account', () => {
  it('says what would be linked, asks the password and the second factor, then signs in on the page asked for', async () => {
    const fetchMock = mockFetch({
      'GET /api/version': version,
      'POST /api/auth/oidc/link/open': () => jsonResponse({ success: true, data: OFFER }),
      'POST /api/auth/oidc/link': (init) => {
        const body = sentJson(init) as { password: string; code: string | null };
        if (body.password !== 'secret123') {
          return jsonResponse({ success: false, code: 'invalid_credentials', message: 'Invalid email or password' }, 401);
        }
        if (body.code === null) {
          return jsonResponse(
            {
              success: false,
              code: 'two_factor_required',
              message: 'Two-factor authentication code required',
              requires2FA: true,
              availableMethods: ['totp'],
              preferredMethod: 'totp',
            },
            401,
          );
        }
        return jsonResponse({ success: true, data: { user: USER, token: 'linked-token' } });
      },
      ...sessionRoutes(USER),
    });
    renderApp('/login/link?oidc_link=one-time&return_to=%2Ftoday');
    expect(
      (await screen.findByText(/You signed in with Authelia as kim@example.test/)).textContent,
    ).toContain('A Pillbox account with this address already exists: kim@example.test.');

    const password = screen.getByLabelText('Password of kim@example.test');
    fireEvent.input(password, { target: { value: 'wrong' } });
    fireEvent.click(screen.getByRole('button', { name: 'Link and sign in' }));
    expect((await screen.findByRole('alert')).textContent).toBe('That is not the password of this Pillbox account.');

    fireEvent.input(password, { target: { value: 'secret123' } });
    fireEvent.click(screen.getByRole('button', { name: 'Link and sign in' }));
    const code = await screen.findByLabelText('Two-factor code');
    fireEvent.input(code, { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Link and sign in' }));
    await waitFor(() => expect(location()).toBe('/today'));
    expect(localStorage.getItem('token')).toBe('linked-token');

    const opened = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/oidc/link/open');
    expect(opened.map(([, init]) => sentJson(init))).toEqual([{ code: 'one-time' }]);
    const links = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/oidc/link');
    expect(links.map(([, init]) => sentJson(init))).toEqual([
      { link: 'link-secret', password: 'wrong', code: null },
      { link: 'link-secret', password: 'secret123', code: null },
      { link: 'link-secret', password: 'secret123', code: '123456' },
    ]);
  });

  it('says so when the link code was used or is too old', async () => {
    mockFetch({
      'GET /api/version': version,
      'POST /api/auth/oidc/link/open': () =>
        jsonResponse({ success: false, code: 'oidc_code_invalid', message: 'This link request was already used' }, 401),
    });
    renderApp('/login/link?oidc_link=stale');
    expect((await screen.findByRole('alert')).textContent).toBe(
      'This sign-in link was already used or is too old. Please sign in again.',
    );
    expect(screen.getByRole('link', { name: 'Back to sign-in' }).getAttribute('href')).toBe('/login');
  });
});

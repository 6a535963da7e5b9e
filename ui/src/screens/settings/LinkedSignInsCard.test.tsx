import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch, sessionRoutes } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';

const USER = { id: 9, email: 'sam@example.com', firstName: 'Sam', lastName: '', emailVerified: true, created_at: '2026-11-21T12:00:00Z' };
const IDENTITY = {
  id: 4,
  issuer: 'https://auth.example.com',
  label: 'Authelia',
  email: 'sam@example.com',
  linked_at: '2026-11-25T08:00:00Z',
  last_used_at: null,
};

function openSecurity(unlink: () => Response) {
  localStorage.setItem('token', 'stored-token');
  localStorage.setItem('user', JSON.stringify(USER));
  const listed = [IDENTITY];
  mockFetch({
    'GET /api/version': () => jsonResponse({ success: true, data: { version: '1.0.0' } }),
    ...sessionRoutes(USER),
    'GET /api/auth/2fa/status': () =>
      jsonResponse({ success: true, data: { enabled: false, methods: [], preferredMethod: null, backupCodesRemaining: 0 } }),
    'GET /api/tokens': () => jsonResponse({ success: true, data: [] }),
    'GET /api/auth/oidc/identities': () => jsonResponse({ success: true, data: listed }),
    'DELETE /api/auth/oidc/identities/4': () => {
      const answer = unlink();
      if (answer.ok) listed.splice(0, listed.length);
      return answer;
    },
  });
  renderApp('/settings?section=security');
}

describe('Settings → Security → Linked sign-ins', () => {
  it('shows the linked identity and unlinks it after a confirmation', async () => {
    openSecurity(() => jsonResponse({ success: true, message: 'Identity unlinked' }));
    const row = await screen.findByTestId('linked-sign-in');
    expect(within(row).getByRole('heading', { name: 'Authelia' })).toBeTruthy();
    expect(row.textContent).toContain('https://auth.example.com');
    expect(row.textContent).toContain('sam@example.com');
    expect(row.textContent).toContain('Last usedNever');
    const user = userEvent.setup();
    await user.click(within(row).getByRole('button', { name: 'Unlink' }));
    const dialog = await screen.findByRole('dialog', { name: 'Unlink this sign-in?' });
    await user.click(within(dialog).getByRole('button', { name: 'Unlink' }));
    expect(await screen.findByText('Authelia is no longer linked to your account.')).toBeTruthy();
    expect(screen.queryByTestId('linked-sign-in')).toBeNull();
  });

  it("says why the account's only way to sign in stays linked", async () => {
    openSecurity(() =>
      jsonResponse({ success: false, code: 'oidc_last_sign_in', message: 'This is the only way to sign in' }, 409),
    );
    const row = await screen.findByTestId('linked-sign-in');
    const user = userEvent.setup();
    await user.click(within(row).getByRole('button', { name: 'Unlink' }));
    const dialog = await screen.findByRole('dialog', { name: 'Unlink this sign-in?' });
    await user.click(within(dialog).getByRole('button', { name: 'Unlink' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain(
      'This is the only way to sign in to your account. Set a password first',
    );
    expect(screen.getByTestId('linked-sign-in')).toBeTruthy();
  });
});

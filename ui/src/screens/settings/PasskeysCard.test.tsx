import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { cancelled, fakeWebAuthn, removeFakeWebAuthn } from '../../test/fakeWebAuthn';
import { jsonResponse, mockFetch, requestUrl, sentJson, sessionRoutes } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';

const USER = { id: 9, email: 'sam@example.com', firstName: 'Sam', lastName: '', emailVerified: true, created_at: '2026-11-21T12:00:00Z' };
const OPTIONS = {
  ceremony: 'ceremony-1',
  publicKey: {
    challenge: 'AAEC',
    rp: { id: 'localhost', name: 'Pillbox' },
    user: { id: 'BQYH', name: 'sam@example.com', displayName: 'Sam' },
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
    excludeCredentials: [{ type: 'public-key', id: 'CAk' }],
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    timeout: 300000,
  },
};

function passkey(overrides: Record<string, unknown> = {}) {
  return { id: 3, name: 'Laptop', created_at: '2026-11-25T08:00:00Z', last_used_at: null, ...overrides };
}

function openSecurity(passkeys: Record<string, unknown>[], extra: Parameters<typeof mockFetch>[0] = {}, offered = true) {
  localStorage.setItem('token', 'stored-token');
  localStorage.setItem('user', JSON.stringify(USER));
  const listed = [...passkeys];
  const fetchMock = mockFetch({
    'GET /api/version': () => jsonResponse({ success: true, data: { version: '1.0.0' } }),
    ...sessionRoutes(USER),
    'GET /api/auth/providers': () => jsonResponse({ success: true, data: { password: true, oidc: null, proxy: false, passkeys: offered } }),
    'GET /api/auth/2fa/status': () => jsonResponse({ success: true, data: { enabled: false, methods: [], preferredMethod: null, backupCodesRemaining: 0 } }),
    'GET /api/tokens': () => jsonResponse({ success: true, data: [] }),
    'GET /api/auth/passkeys': () => jsonResponse({ success: true, data: listed }),
    'POST /api/auth/passkeys/register/options': () => jsonResponse({ success: true, data: OPTIONS }),
    'POST /api/auth/passkeys/register': (init) => {
      const body = sentJson(init) as { name: string };
      const added = passkey({ id: 4, name: body.name });
      listed.push(added);
      return jsonResponse({ success: true, data: added }, 201);
    },
    'DELETE /api/auth/passkeys/3': () => {
      listed.splice(0, listed.length);
      return jsonResponse({ success: true, message: 'Passkey deleted' });
    },
    ...extra,
  });
  renderApp('/settings?section=security');
  return fetchMock;
}

const posted = (fetchMock: ReturnType<typeof mockFetch>, path: string) =>
  fetchMock.mock.calls.filter(([url, init]) => init?.method === 'POST' && requestUrl(url).endsWith(path)).map(([, init]) => sentJson(init));

afterEach(removeFakeWebAuthn);

describe('Settings → Security → Passkeys', () => {
  it('lists each passkey with when it was added and last used', async () => {
    fakeWebAuthn();
    openSecurity([passkey(), passkey({ id: 5, name: 'Phone', last_used_at: '2026-11-26T09:30:00Z' })]);
    const rows = await screen.findAllByTestId('passkey-row');
    expect(rows).toHaveLength(2);
    const [laptop, phone] = rows as [HTMLElement, HTMLElement];
    expect(within(laptop).getByRole('heading', { name: 'Laptop' })).toBeTruthy();
    expect(laptop.textContent).toContain('Last usedNever');
    expect(phone.textContent).toContain('Added');
    expect(phone.textContent).not.toContain('Last usedNever');
  });

  it('says when the server has no passkeys, and offers none to add', async () => {
    fakeWebAuthn();
    openSecurity([], {}, false);
    expect((await screen.findByTestId('passkeys-unavailable')).textContent).toBe(
      'Passkeys are not available on this server. Its administrator must set its public address (public_url).',
    );
    expect(screen.queryByRole('button', { name: 'Add a passkey' })).toBeNull();
  });

  it('adds a passkey: a name, then the browser makes it from the server’s options', async () => {
    const browser = fakeWebAuthn();
    const fetchMock = openSecurity([]);
    const user = userEvent.setup();
    expect(await screen.findByText('No passkeys yet.')).toBeTruthy();
    await user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a passkey' });
    expect(within(dialog).getByRole('button', { name: 'Continue' })).toHaveProperty('disabled', true);
    await user.type(within(dialog).getByLabelText('Name'), '  Work laptop ');
    await user.type(within(dialog).getByLabelText('Your password'), 'hunter22');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));

    expect(await screen.findByText('"Work laptop" is added. You can now sign in with it.')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(browser.create).toHaveBeenCalledTimes(1);
    const publicKey = browser.create.mock.calls[0]?.[0]?.publicKey;
    // The base64url of the document became the bytes the browser wants.
    expect(new Uint8Array(publicKey?.challenge as ArrayBuffer)).toEqual(new Uint8Array([0, 1, 2]));
    expect(new Uint8Array(publicKey?.user.id as ArrayBuffer)).toEqual(new Uint8Array([5, 6, 7]));
    expect(new Uint8Array(publicKey?.excludeCredentials?.[0]?.id as ArrayBuffer)).toEqual(new Uint8Array([8, 9]));
    expect(publicKey?.authenticatorSelection?.residentKey).toBe('required');
    expect(posted(fetchMock, '/api/auth/passkeys/register/options')).toEqual([{ password: 'hunter22' }]);
    expect(posted(fetchMock, '/api/auth/passkeys/register')).toEqual([
      {
        ceremony: 'ceremony-1',
        name: 'Work laptop',
        credential: {
          id: 'AQID',
          rawId: 'AQID',
          type: 'public-key',
          response: { attestationObject: 'BAU', clientDataJSON: 'Bgc' },
          extensions: {},
        },
      },
    ]);
    expect(await screen.findByRole('heading', { name: 'Work laptop' })).toBeTruthy();
  });

  it('says so when the browser prompt is cancelled, and stores nothing', async () => {
    const browser = fakeWebAuthn();
    browser.create.mockRejectedValueOnce(cancelled());
    const fetchMock = openSecurity([]);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a passkey' });
    await user.type(within(dialog).getByLabelText('Name'), 'Phone');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'No passkey was used: the request was cancelled or timed out. Try again when your device is ready.',
    );
    expect(posted(fetchMock, '/api/auth/passkeys/register')).toEqual([]);
  });

  it('says when the password is wrong, before the browser is asked', async () => {
    const browser = fakeWebAuthn();
    openSecurity([], {
      'POST /api/auth/passkeys/register/options': () =>
        jsonResponse({ success: false, code: 'password_incorrect', message: 'Password is incorrect' }, 400),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a passkey' });
    await user.type(within(dialog).getByLabelText('Name'), 'Phone');
    await user.type(within(dialog).getByLabelText('Your password'), 'wrong');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Password is incorrect');
    expect(browser.create).not.toHaveBeenCalled();
  });

  it('says when this browser cannot make passkeys', async () => {
    openSecurity([]);
    const user = userEvent.setup();
    expect(
      await screen.findByText('This browser cannot use passkeys on this page. Passkeys need a current browser and a secure (https) address.'),
    ).toBeTruthy();
    await user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a passkey' });
    await user.type(within(dialog).getByLabelText('Name'), 'Phone');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain('This browser cannot use passkeys');
  });

  it('deletes a passkey after asking', async () => {
    fakeWebAuthn();
    openSecurity([passkey()]);
    const user = userEvent.setup();
    const row = await screen.findByTestId('passkey-row');
    await user.click(within(row).getByRole('button', { name: 'Delete' }));
    const confirm = await screen.findByRole('dialog', { name: 'Delete passkey?' });
    expect(confirm.textContent).toContain('"Laptop" will no longer sign you in.');
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('"Laptop" is deleted.')).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('passkey-row')).toBeNull());
  });

  it('keeps the last way to sign in, and says why', async () => {
    fakeWebAuthn();
    openSecurity([passkey()], {
      'DELETE /api/auth/passkeys/3': () =>
        jsonResponse(
          { success: false, code: 'passkey_last_sign_in_method', message: 'This passkey is the only way left to sign in' },
          409,
        ),
    });
    const user = userEvent.setup();
    const row = await screen.findByTestId('passkey-row');
    await user.click(within(row).getByRole('button', { name: 'Delete' }));
    const confirm = await screen.findByRole('dialog', { name: 'Delete passkey?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect((await within(confirm).findByRole('alert')).textContent).toBe(
      'This passkey is the only way left to sign in to your account. Add another passkey or set a password first.',
    );
    expect(screen.getByTestId('passkey-row')).toBeTruthy();
  });
});

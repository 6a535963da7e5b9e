import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch, requestUrl, sentJson, sessionRoutes } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';

const USER = { id: 9, email: 'sam@example.com', firstName: 'Sam', lastName: '', emailVerified: true, created_at: '2026-11-21T12:00:00Z' };
const SECRET = 'pbx_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v';

const PEOPLE = [
  { id: 1, name: 'Sam', is_self: true, archived: false, role: 'owner', owner_name: 'Sam', carer_id: null, home_assistant: false, home_assistant_available: true, created_at: '2026-11-21T12:00:00Z' },
  { id: 2, name: 'Grandpa Jo', is_self: false, archived: false, role: 'owner', owner_name: 'Sam', carer_id: null, home_assistant: false, home_assistant_available: true, created_at: '2026-11-21T12:00:00Z' },
  { id: 7, name: 'Kim', is_self: false, archived: false, role: 'record', owner_name: 'Kim', carer_id: 3, home_assistant: false, home_assistant_available: true, created_at: '2026-11-21T12:00:00Z' },
];

function token(overrides: Record<string, unknown> = {}) {
  return {
    id: 4,
    name: 'Home Assistant',
    scope: 'record',
    people: [{ id: 2, name: 'Grandpa Jo' }],
    created_at: '2026-11-25T08:00:00Z',
    last_used_at: null,
    expires_at: null,
    ...overrides,
  };
}

function openSecurity(tokens: Record<string, unknown>[], extra: Parameters<typeof mockFetch>[0] = {}) {
  localStorage.setItem('token', 'stored-token');
  localStorage.setItem('user', JSON.stringify(USER));
  const listed = [...tokens];
  const fetchMock = mockFetch({
    'GET /api/version': () => jsonResponse({ success: true, data: { version: '1.0.0' } }),
    ...sessionRoutes(USER),
    'GET /api/auth/2fa/status': () => jsonResponse({ success: true, data: { enabled: false, methods: [], preferredMethod: null, backupCodesRemaining: 0 } }),
    'GET /api/people': () => jsonResponse({ success: true, data: PEOPLE }),
    'GET /api/tokens': () => jsonResponse({ success: true, data: listed }),
    'DELETE /api/tokens/4': () => {
      listed.splice(0, listed.length);
      return jsonResponse({ success: true, message: 'API token revoked' });
    },
    ...extra,
  });
  renderApp('/settings?section=security');
  return fetchMock;
}

describe('Settings → Security → API tokens', () => {
  it('lists each token with what it may do, for whom, and when it was used', async () => {
    openSecurity([token(), token({ id: 5, name: 'Dashboard', scope: 'read', people: null, last_used_at: '2026-11-26T09:30:00Z', expires_at: '2027-11-26T09:30:00Z' })]);
    const rows = await screen.findAllByTestId('api-token-row');
    expect(rows).toHaveLength(2);
    const [assistant, dashboard] = rows as [HTMLElement, HTMLElement];
    expect(within(assistant).getByRole('heading', { name: 'Home Assistant' })).toBeTruthy();
    expect(within(assistant).getByTestId('api-token-scope').textContent).toBe('Record');
    expect(assistant.textContent).toContain('Grandpa Jo');
    expect(assistant.textContent).toContain('Last usedNever');
    expect(assistant.textContent).toContain('ExpiresNever');
    expect(within(dashboard).getByTestId('api-token-scope').textContent).toBe('Read');
    expect(dashboard.textContent).toContain('Everyone of your account');
    expect(dashboard.textContent).not.toContain('Last usedNever');
  });

  it('says when there are none', async () => {
    openSecurity([]);
    expect(await screen.findByText('No API tokens yet.')).toBeTruthy();
  });

  it('makes a token for chosen people and shows it once, with a copy button', async () => {
    const fetchMock = openSecurity([], {
      'POST /api/tokens': (init) => {
        const body = sentJson(init) as { name: string; scope: string; person_ids: number[] | null; expires_in_days: number | null };
        return jsonResponse(
          { success: true, data: { ...token({ name: body.name, scope: body.scope, people: [{ id: 2, name: 'Grandpa Jo' }] }), token: SECRET } },
          201,
        );
      },
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Create API token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API token' });
    const submit = within(dialog).getByRole('button', { name: 'Create token' });
    expect(submit).toHaveProperty('disabled', true);
    expect(within(dialog).getByText('Give the token a name.')).toBeTruthy();

    await user.type(within(dialog).getByLabelText('Name'), '  Jo button  ');
    await user.click(within(dialog).getByRole('radio', { name: /^Record/ }));
    await user.click(within(dialog).getByRole('radio', { name: 'Only these people:' }));
    expect(within(dialog).getByText('Choose at least one person.')).toBeTruthy();
    // Only the account's own people: Kim is cared for, not the account's.
    expect(within(dialog).queryByRole('checkbox', { name: 'Kim' })).toBeNull();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Grandpa Jo' }));
    await user.type(within(dialog).getByLabelText('Expires after (days)'), '30');
    await user.click(submit);

    const shown = await screen.findByRole('dialog', { name: 'Token "Jo button" created' });
    expect(within(shown).getByText('Copy this token now: you will not see it again. Pillbox keeps only a fingerprint of it.')).toBeTruthy();
    expect(within(shown).getByDisplayValue(SECRET).id).toBe('api-token-secret');
    expect(within(shown).getByRole('button', { name: 'Copy token' })).toBeTruthy();
    const posts = fetchMock.mock.calls.filter(([url, init]) => init?.method === 'POST' && requestUrl(url).endsWith('/api/tokens'));
    expect(posts.map(([, init]) => sentJson(init))).toEqual([
      { name: 'Jo button', scope: 'record', person_ids: [2], expires_in_days: 30 },
    ]);

    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByDisplayValue(SECRET)).toBeNull();
  });

  it('tells why the server refused a token, in the person’s language', async () => {
    openSecurity([], {
      'POST /api/tokens': () =>
        jsonResponse(
          { success: false, code: 'api_token_limit_reached', message: 'An account has at most 50 API tokens', params: { max: 50 } },
          409,
        ),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Create API token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API token' });
    await user.type(within(dialog).getByLabelText('Name'), 'One more');
    await user.click(within(dialog).getByRole('button', { name: 'Create token' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'You have 50 API tokens already. Revoke one you no longer use first.',
    );
  });

  it('revokes a token after asking', async () => {
    openSecurity([token()]);
    const user = userEvent.setup();
    const row = await screen.findByTestId('api-token-row');
    await user.click(within(row).getByRole('button', { name: 'Revoke' }));
    const confirm = await screen.findByRole('dialog', { name: 'Revoke API token?' });
    expect(confirm.textContent).toContain('"Home Assistant" stops working at once.');
    await user.click(within(confirm).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText('"Home Assistant" is revoked.')).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('api-token-row')).toBeNull());
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { disabledState } from '../test/disabledReason';
import { deferred, requestUrl, sentJson } from '../test/fetchMock';
import { fail, medicationJson, medsServer, ok, requestsTo, signInForMeds, USER } from '../test/medications';
import { renderApp } from '../test/renderApp';

afterEach(() => localStorage.clear());

const PEOPLE = [
  { id: 1, name: 'Pat', is_self: true, archived: false, role: 'owner', owner_name: 'Pat', carer_id: null, home_assistant: false, home_assistant_available: true, created_at: '' },
  { id: 2, name: 'Kid', is_self: false, archived: false, role: 'owner', owner_name: 'Pat', carer_id: null, home_assistant: false, home_assistant_available: true, created_at: '' },
  { id: 5, name: 'Mum', is_self: false, archived: false, role: 'view', owner_name: 'Sam', carer_id: 40, home_assistant: false, home_assistant_available: true, created_at: '' },
];

const aspirin = medicationJson({ id: 3, name: 'Aspirin', person_id: 1, escalation: null });
const syrup = medicationJson({ id: 4, name: 'Syrup', person_id: 2, escalation: null });
const digoxin = medicationJson({ id: 6, name: 'Digoxin', person_id: 5, escalation: null });

/** Each person's list by `?person_id=`; without it, the account's own people's. */
function server() {
  const byPerson: Record<string, unknown[]> = { '': [aspirin, syrup], '1': [aspirin], '2': [syrup], '5': [digoxin] };
  return medsServer({
    'GET /api/people': () => ok(PEOPLE),
    'GET /api/medications': (_init, url) => ok(byPerson[url.searchParams.get('person_id') ?? ''] ?? []),
  });
}

/** The medication lists asked for, by their person_id (null: no filter). */
function listRequests(fetchMock: ReturnType<typeof server>): (string | null)[] {
  return requestsTo(fetchMock, 'GET', '/api/medications').map(([input]) =>
    new URL(requestUrl(input), 'http://x').searchParams.get('person_id'),
  );
}

describe('the person switcher', () => {
  it('offers everyone, own people and cared people with their owner, and filters the list', async () => {
    signInForMeds();
    const fetchMock = server();
    renderApp('/medications');
    const switcher = await screen.findByLabelText('Person');
    expect(within(switcher).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Everyone',
      'Pat',
      'Kid',
      'Mum (Sam)',
    ]);
    // Everyone: own people's and cared people's, each card of someone other than the account
    // holder saying whose it is.
    await screen.findByRole('heading', { name: 'Digoxin' });
    const whose = screen.getAllByTestId('medication-card').map((card) => [
      within(card).getByRole('heading').textContent,
      within(card).queryByTestId('medication-person')?.textContent ?? null,
    ]);
    expect(whose).toEqual([
      ['Aspirin', null],
      ['Syrup', 'Kid'],
      ['Digoxin', 'Mum'],
    ]);
    // The view role: no buttons on Mum's card, the others have theirs.
    const mumCard = screen.getAllByTestId('medication-card')[2];
    expect(mumCard && within(mumCard).queryAllByRole('button')).toEqual([]);

    await userEvent.selectOptions(switcher, 'Kid');
    await waitFor(() => expect(listRequests(fetchMock)).toContain('2'));
    expect(JSON.parse(localStorage.getItem('pillbox_person') ?? '{}')).toEqual({ [String(USER.id)]: 2 });
  });

  it('is not shown to an account with nobody else', async () => {
    signInForMeds();
    medsServer({ 'GET /api/people': () => ok([PEOPLE[0]]), 'GET /api/medications': () => ok([aspirin]) });
    renderApp('/medications');
    await screen.findByRole('heading', { name: 'Aspirin' });
    expect(screen.queryByLabelText('Person')).toBeNull();
  });

  it('gives a view-role carer no buttons that change the medication', async () => {
    signInForMeds();
    localStorage.setItem('pillbox_person', JSON.stringify({ [String(USER.id)]: 5 }));
    const fetchMock = server();
    renderApp('/medications');
    const card = (await screen.findByRole('heading', { name: 'Digoxin' })).closest('article');
    if (!card) throw new Error('no card');
    await waitFor(() => expect(listRequests(fetchMock)).toContain('5'));
    expect(within(card).queryAllByRole('button')).toEqual([]);
    expect(screen.queryByRole('button', { name: 'Add Medication' })).toBeNull();
  });

  it('falls back to everyone when the chosen person is gone', async () => {
    signInForMeds();
    localStorage.setItem('pillbox_person', JSON.stringify({ [String(USER.id)]: 99 }));
    const fetchMock = server();
    renderApp('/medications');
    const switcher = await screen.findByLabelText<HTMLSelectElement>('Person');
    await waitFor(() => expect(switcher.value).toBe(''));
    await waitFor(() => expect(listRequests(fetchMock)).toContain(null));
  });
});

describe('the invitation page', () => {
  it('asks a signed-out visitor to sign in and brings them back afterwards', async () => {
    medsServer({});
    renderApp('/invite/tok_123');
    expect(await screen.findByRole('heading', { name: 'Invitation to help' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/login');
    expect(localStorage.getItem('pillbox_invitation')).toBe('tok_123');
  });

  it('names who invites and for whom before signing in, and offers registration only where it works', async () => {
    medsServer({
      'GET /api/invitations/tok_123/preview': () =>
        ok({ person_name: 'Mum', owner_name: 'Sam', role: 'record', email: 'k***@example.org', expires_at: '' }),
      'GET /api/auth/registration': () => ok({ signups: 'closed', open: false, invitations: false }),
    });
    renderApp('/invite/tok_123');
    expect((await screen.findByTestId('invitation-text')).textContent).toBe('Sam invites you to help care for Mum.');
    expect(screen.getByText(/Also logs, edits and skips doses/)).toBeTruthy();
    expect(screen.getByText(/the address the invitation went to \(k\*\*\*@example\.org\)/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sign in' })).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('link', { name: 'Create an account' })).toBeNull());
  });

  it('shows who invites, for whom and the role; accepting opens that person', async () => {
    signInForMeds();
    const fetchMock = medsServer({
      'GET /api/invitations/tok_123': () =>
        ok({ person_name: 'Mum', owner_name: 'Sam', role: 'record', email: USER.email, expires_at: '2026-12-01T00:00:00Z' }),
      'POST /api/invitations/tok_123/accept': () => ok(PEOPLE[2]),
      'GET /api/people': () => ok(PEOPLE),
      'GET /api/medications': (_init, url) => ok(url.searchParams.get('person_id') === '5' ? [digoxin] : []),
    });
    renderApp('/invite/tok_123');
    expect((await screen.findByTestId('invitation-text')).textContent).toBe('Sam invites you to help care for Mum.');
    expect(screen.getByText(/Also logs, edits and skips doses/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Accept' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/medications'));
    expect(requestsTo(fetchMock, 'POST', '/api/invitations/tok_123/accept')).toHaveLength(1);
    await waitFor(() => expect(listRequests(fetchMock)).toContain('5'));
  });

  it('explains an invitation sent to another address', async () => {
    signInForMeds();
    medsServer({
      'GET /api/invitations/tok_123': () =>
        fail('This invitation was sent to another address', 403, 'invitation_other_account', {
          email: 'k***@example.org',
        }),
    });
    renderApp('/invite/tok_123');
    expect((await screen.findByRole('alert')).textContent).toContain(
      `This invitation was sent to k***@example.org, but you are signed in as ${USER.email}.`,
    );
    expect(screen.getByRole('button', { name: 'Sign in with another account' })).toBeTruthy();
  });

  it('explains one that expired or was used, and forgets it', async () => {
    signInForMeds();
    localStorage.setItem('pillbox_invitation', 'tok_123');
    medsServer({
      'GET /api/invitations/tok_123': () => fail('Invitation not found', 404, 'invitation_not_found'),
    });
    renderApp('/invite/tok_123');
    expect((await screen.findByRole('alert')).textContent).toContain('This invitation is not valid any more');
    await waitFor(() => expect(localStorage.getItem('pillbox_invitation')).toBeNull());
  });
});

describe('a person’s carers', () => {
  it('invites with a role and shows the link to pass on', async () => {
    signInForMeds();
    const invited = {
      id: 30,
      person_id: 2,
      email: 'kim@example.org',
      name: null,
      user_id: null,
      role: 'view',
      status: 'invited',
      created_at: '',
      accepted_at: null,
      expires_at: '2026-12-01T00:00:00Z',
    };
    const fetchMock = medsServer({
      'GET /api/people': () => ok(PEOPLE),
      'GET /api/people/2/carers': () => ok([]),
      'GET /api/people/2/audit': () => ok([]),
      'POST /api/people/2/carers': () =>
        ok({ ...invited, invite_url: 'https://pillbox.example/invite/tok_9' }, 201),
    });
    renderApp('/people/2');
    const card = await screen.findByTestId('carers-card');
    await within(card).findByText('No carers yet.');
    await userEvent.type(within(card).getByLabelText('Their e-mail address'), 'kim@example.org');
    await userEvent.click(within(card).getByRole('radio', { name: /View/ }));
    await userEvent.click(within(card).getByRole('button', { name: 'Send invitation' }));
    const link = await screen.findByTestId('invite-link');
    expect(within(link).getByLabelText<HTMLInputElement>('Invitation link').value).toBe(
      'https://pillbox.example/invite/tok_9',
    );
    const [, init] = requestsTo(fetchMock, 'POST', '/api/people/2/carers')[0] ?? [];
    expect(sentJson(init)).toEqual({ email: 'kim@example.org', role: 'view' });
  });

  it('asks before changing a carer’s role', async () => {
    signInForMeds();
    const kim = {
      id: 31,
      person_id: 2,
      email: 'kim@example.org',
      name: 'Kim Berg',
      user_id: 9,
      role: 'view',
      status: 'active',
      created_at: '',
      accepted_at: '2026-11-01T00:00:00Z',
      expires_at: null,
      invite_url: null,
    };
    const fetchMock = medsServer({
      'GET /api/people': () => ok(PEOPLE),
      'GET /api/people/2/carers': () => ok([kim]),
      'GET /api/people/2/audit': () => ok([]),
      'PUT /api/people/2/carers/31': () => ok({ ...kim, role: 'manage' }),
    });
    renderApp('/people/2');
    const card = await screen.findByTestId('carers-card');
    await userEvent.selectOptions(await within(card).findByLabelText('Role of Kim Berg'), 'manage');
    const dialog = await screen.findByRole('dialog', { name: 'Change the role?' });
    expect(within(dialog).getByText('Kim Berg becomes Manage for Kid: Also changes medications, schedules and stock.')).toBeTruthy();
    expect(requestsTo(fetchMock, 'PUT', '/api/people/2/carers/31')).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(requestsTo(fetchMock, 'PUT', '/api/people/2/carers/31')).toHaveLength(0);

    await userEvent.selectOptions(within(card).getByLabelText('Role of Kim Berg'), 'manage');
    await userEvent.click(await screen.findByRole('button', { name: 'Change role' }));
    await waitFor(() => expect(requestsTo(fetchMock, 'PUT', '/api/people/2/carers/31')).toHaveLength(1));
    const [, init] = requestsTo(fetchMock, 'PUT', '/api/people/2/carers/31')[0] ?? [];
    expect(sentJson(init)).toEqual({ role: 'manage' });
  });

  it('shows a carer’s address once', async () => {
    signInForMeds();
    const carer = (id: number, email: string, name: string | null) => ({
      id,
      person_id: 2,
      email,
      name,
      user_id: name === null ? null : id,
      role: 'view',
      status: name === null ? 'invited' : 'active',
      created_at: '',
      accepted_at: name === null ? null : '2026-11-01T00:00:00Z',
      expires_at: name === null ? '2026-12-01T00:00:00Z' : null,
      invite_url: null,
    });
    medsServer({
      'GET /api/people': () => ok(PEOPLE),
      // An account without a name of its own is named by its address.
      'GET /api/people/2/carers': () =>
        ok([
          carer(31, 'lee@example.org', 'lee@example.org'),
          carer(32, 'kim@example.org', 'Kim Berg'),
          carer(33, 'new@example.org', null),
        ]),
      'GET /api/people/2/audit': () => ok([]),
    });
    renderApp('/people/2');
    const rows = await screen.findAllByTestId('carer-row');
    expect(rows).toHaveLength(3);
    const [lee, kim, invited] = rows.map((row) => row.querySelector('.carer-text')?.textContent ?? '');
    expect(lee?.split('lee@example.org')).toHaveLength(2);
    expect(kim).toContain('Kim Berg');
    expect(kim).toContain('kim@example.org');
    expect(invited?.split('new@example.org')).toHaveLength(2);
  });

  it('asks before deleting a person and offers archiving instead', async () => {
    signInForMeds();
    const fetchMock = medsServer({
      'GET /api/people': () => ok(PEOPLE),
      'GET /api/people/2/carers': () => ok([]),
      'GET /api/people/2/audit': () => ok([]),
      'PUT /api/people/2': () => ok({ ...PEOPLE[1], archived: true }),
    });
    renderApp('/people/2');
    await userEvent.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete Kid?' });
    expect(dialog.textContent).toContain('all their medications, reminders and history');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Archive instead' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const [, init] = requestsTo(fetchMock, 'PUT', '/api/people/2')[0] ?? [];
    expect(sentJson(init)).toEqual({ archived: true });
    expect(requestsTo(fetchMock, 'DELETE', '/api/people/2')).toHaveLength(0);
  });

  it('says why the activity’s page buttons wait while a page loads', async () => {
    signInForMeds();
    const entry = (id: number) => ({
      id,
      actor_name: 'Lee',
      action: 'dose.logged',
      subject: 'Syrup',
      created_at: '2026-11-20T08:00:00Z',
    });
    const older = deferred<Response>();
    medsServer({
      'GET /api/people': () => ok(PEOPLE),
      'GET /api/people/2/carers': () => ok([]),
      'GET /api/people/2/audit': (_init, url) =>
        url.searchParams.get('offset') === '0' ? ok(Array.from({ length: 25 }, (_, i) => entry(100 - i))) : older.promise,
    });
    renderApp('/people/2');
    const card = await screen.findByTestId('audit-card');
    await waitFor(() => expect(within(card).getAllByTestId('audit-entry')).toHaveLength(25));
    const olderButton = within(card).getByRole('button', { name: 'Older' });
    expect(disabledState(olderButton)).toEqual({ disabled: false, reason: null, title: null });

    await userEvent.click(olderButton);
    const waiting = 'Wait until this page has loaded.';
    const newer = within(card).getByRole('button', { name: 'Newer' });
    await waitFor(() => expect(disabledState(newer)).toEqual({ disabled: true, reason: waiting, title: waiting }));

    older.resolve(ok([entry(1)]));
    await waitFor(() => expect(within(card).getAllByTestId('audit-entry')).toHaveLength(1));
    expect(disabledState(newer)).toEqual({ disabled: false, reason: null, title: null });
    // The last page: Older is off because there is nothing older, and says nothing more.
    expect(disabledState(olderButton)).toEqual({ disabled: true, reason: null, title: null });
  });

  it('shows a person in Home Assistant only when the owner ticks it, and stops again', async () => {
    signInForMeds();
    let shown = false;
    const fetchMock = medsServer({
      'GET /api/people': () => ok(PEOPLE.map((p) => (p.id === 2 ? { ...p, home_assistant: shown } : p))),
      'GET /api/people/2/carers': () => ok([]),
      'GET /api/people/2/audit': () => ok([]),
      'PUT /api/people/2': (init) => {
        shown = (sentJson(init) as { home_assistant: boolean }).home_assistant;
        return ok({ ...PEOPLE[1], home_assistant: shown });
      },
    });
    renderApp('/people/2');
    const box = await screen.findByRole('switch', { name: /Show in Home Assistant/ });
    expect((box as HTMLInputElement).checked).toBe(false);
    await userEvent.click(box);
    await screen.findByText('Kid is shown in Home Assistant.');
    expect((box as HTMLInputElement).checked).toBe(true);
    await userEvent.click(box);
    await screen.findByText('Kid is no longer shown in Home Assistant.');
    expect((box as HTMLInputElement).checked).toBe(false);
    const sent = requestsTo(fetchMock, 'PUT', '/api/people/2').map(([, init]) => sentJson(init));
    expect(sent).toEqual([{ home_assistant: true }, { home_assistant: false }]);
  });

  it('says so when the server has no MQTT broker: the choice is kept, nothing is claimed shown', async () => {
    signInForMeds();
    const noBroker = PEOPLE.map((p) => ({ ...p, home_assistant_available: false }));
    let shown = false;
    medsServer({
      'GET /api/people': () => ok(noBroker.map((p) => (p.id === 2 ? { ...p, home_assistant: shown } : p))),
      'GET /api/people/2/carers': () => ok([]),
      'GET /api/people/2/audit': () => ok([]),
      'PUT /api/people/2': (init) => {
        shown = (sentJson(init) as { home_assistant: boolean }).home_assistant;
        return ok({ ...noBroker[1], home_assistant: shown });
      },
    });
    renderApp('/people/2');
    const box = await screen.findByRole('switch', { name: /Show in Home Assistant/ });
    expect(screen.getByTestId('home-assistant-no-broker').textContent).toContain('This server has no MQTT broker set');
    await userEvent.click(box);
    await screen.findByText('Kid will be shown in Home Assistant once the server has an MQTT broker.');
    expect(screen.queryByText('Kid is shown in Home Assistant.')).toBeNull();
  });

  it('offers Home Assistant only to the owner', async () => {
    signInForMeds();
    medsServer({ 'GET /api/people': () => ok(PEOPLE) });
    renderApp('/people/5');
    await screen.findByRole('heading', { name: 'Your part' });
    expect(screen.queryByRole('switch', { name: /Show in Home Assistant/ })).toBeNull();
  });

  it('gives the account holder’s own person no archive or delete', async () => {
    signInForMeds();
    medsServer({
      'GET /api/people': () => ok(PEOPLE),
      'GET /api/people/1/carers': () => ok([]),
      'GET /api/people/1/audit': () => ok([]),
    });
    renderApp('/people/1');
    await screen.findByTestId('carers-card');
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Archive' })).toBeNull();
  });
});

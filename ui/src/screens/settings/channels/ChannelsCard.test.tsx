import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { SETTINGS_STORAGE_KEY } from '../../../settings/appSettings';
import { jsonResponse, mockFetch, sentJson, sessionRoutes, type Route } from '../../../test/fetchMock';
import { fail, ok, requestsTo } from '../../../test/medications';
import { renderApp } from '../../../test/renderApp';

const USER = { id: 11, email: 'robin@example.com', emailVerified: true, created_at: '2026-11-21T12:00:00Z' };

function channelJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const id = typeof overrides.id === 'number' ? overrides.id : 5;
  return {
    id,
    kind: 'ntfy',
    name: 'Phone',
    config: { server_url: 'https://ntfy.example', topic: 'pills' },
    secret_set: true,
    enabled: true,
    state: 'active',
    state_reason: null,
    last_result: null,
    last_result_at: null,
    created_at: '2026-11-25T08:00:00Z',
    method: `channel:${id}`,
    ...overrides,
  };
}

function preferencesJson(methods: string[]) {
  return {
    email_notifications_enabled: false,
    push_notifications_enabled: true,
    notification_sound_enabled: true,
    notification_vibration_enabled: true,
    default_reminder_minutes_before: 15,
    default_delivery_methods: methods,
    reminders_enabled: true,
    repeat_interval_minutes: 10,
    repeat_max: 3,
    hide_medication_names: false,
    email_fallback_enabled: false,
    email_available: true,
  };
}

type Routes = Record<string, Route>;

/**
 * Settings → Notifications with the given channels; the server keeps what is added. `routes`
 * may be made from the server's list of channels.
 */
function openChannels(initial: Record<string, unknown>[], routes: Routes | ((channels: Record<string, unknown>[]) => Routes) = {}) {
  localStorage.setItem('token', 'stored-token');
  localStorage.setItem('user', JSON.stringify(USER));
  const channels = [...initial];
  let methods = ['push'];
  const fetchMock = mockFetch({
    'GET /api/version': () => ok({ version: '1.0.0' }),
    ...sessionRoutes(USER),
    'GET /api/calendar/feed': () => ok({ exists: false, created_at: null }),
    'GET /api/notifications/settings': () =>
      ok({
        medication_reminders: true,
        reminder_time_before: 15,
        daily_reminder_time: '09:00',
        push_notifications: true,
        email_notifications: false,
      }),
    'GET /api/channels': () => ok(channels),
    'GET /api/notifications/preferences': () => ok(preferencesJson(methods)),
    'PUT /api/notifications/preferences': (init) => {
      const sent = sentJson(init) as { default_delivery_methods?: string[] };
      methods = sent.default_delivery_methods ?? methods;
      return ok(preferencesJson(methods));
    },
    ...(typeof routes === 'function' ? routes(channels) : routes),
  });
  renderApp('/settings?section=notifications');
  return { fetchMock, channels };
}

/** Types a whole value at once, one input event (a person's typing is not what these tests are about). */
function fill(input: HTMLElement, value: string) {
  fireEvent.input(input, { target: { value } });
}

async function channelsCard() {
  return screen.findByTestId('channels-card');
}

async function openAddDialog() {
  const card = await channelsCard();
  await userEvent.click(await within(card).findByRole('button', { name: 'Add channel' }));
  return screen.getByRole('dialog', { name: 'Add a channel' });
}

/**
 * PUT /api/channels/{id} as the server answers a change of settings: what is left out stays,
 * `null` takes it away, and secrets are never shown. `refuse` answers instead when given.
 */
function changeSettingsRoute(channels: Record<string, unknown>[], id: number, refuse?: () => Response | null): Route {
  return (init) => {
    const refused = refuse?.();
    if (refused) return refused;
    const channel = channels.find((c) => c.id === id);
    if (!channel) return fail('Channel not found', 404, 'channel_not_found');
    const { config = {}, ...rest } = sentJson(init) as { config?: Record<string, unknown> };
    const secrets = Object.entries(config).filter(([key]) => key === 'token' || key === 'password');
    const shown = Object.entries({ ...(channel.config as Record<string, unknown>), ...config }).filter(
      ([key, value]) => key !== 'token' && key !== 'password' && value !== null,
    );
    const merged = Object.fromEntries(shown);
    const secretSet = secrets.length === 0 ? channel.secret_set === true : secrets.some(([, value]) => value !== null);
    Object.assign(channel, rest, { config: merged, secret_set: secretSet });
    return ok(channel);
  };
}

async function openSettings(rowIndex = 0) {
  const rows = await within(await channelsCard()).findAllByTestId('channel-row');
  const row = rows[rowIndex];
  if (!row) throw new Error('row missing');
  const name = within(row).getByRole('heading').textContent;
  await userEvent.click(within(row).getByRole('button', { name: 'Change settings' }));
  return { row, dialog: screen.getByRole('dialog', { name: `Settings of ${name}` }) };
}

/** The hint an input names as describing it. */
function hintOf(input: HTMLElement): string {
  const ids = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id.endsWith('-hint'));
  return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
}

describe('Settings, Notifications, Channels', () => {
  it('lists each channel with its kind, state and last answer, and says why one is disabled', async () => {
    openChannels([
      channelJson({
        last_result: 'ntfy took it',
        last_result_at: '2026-11-25T09:00:00Z',
      }),
      channelJson({
        id: 6,
        kind: 'webhook',
        name: 'Home Assistant',
        config: { url: 'https://ha.example/hook', events: ['reminder.due', 'dose.logged'] },
        state: 'disabled',
        state_reason: 'gone',
      }),
      channelJson({ id: 7, kind: 'gotify', name: 'Gotify', config: { server_url: 'https://gotify.example' }, enabled: false }),
    ]);
    const card = await channelsCard();
    const rows = await within(card).findAllByTestId('channel-row');
    expect(rows).toHaveLength(3);
    const [phone, hook, gotify] = rows;
    if (!phone || !hook || !gotify) throw new Error('rows missing');

    expect(within(phone).getByRole('heading', { name: 'Phone' })).toBeTruthy();
    expect(within(phone).getByTestId('channel-kind').textContent).toBe('ntfy');
    expect(within(phone).getByTestId('channel-state').textContent).toBe('Active');
    expect(within(phone).getByTestId('channel-summary').textContent).toBe('https://ntfy.example, topic pills');
    expect(within(phone).getByTestId('channel-last-result').textContent).toMatch(/^Last answer \(.+\): ntfy took it$/);
    expect(within(phone).getByRole('switch', { name: 'Send to Phone' })).toHaveProperty('checked', true);

    expect(within(hook).getByTestId('channel-kind').textContent).toBe('Webhook');
    expect(within(hook).getByTestId('channel-state').textContent).toBe('Disabled');
    expect(within(hook).getByTestId('channel-disabled-reason').textContent).toContain('answered 410 Gone');
    expect(hook.textContent).toContain('Events: A reminder is due · A dose was logged');
    expect(within(hook).getByTestId('channel-last-result').textContent).toBe('Nothing sent yet.');
    expect(within(hook).getByRole('button', { name: 'Switch on again' })).toBeTruthy();
    expect(within(phone).queryByRole('button', { name: 'Switch on again' })).toBeNull();

    expect(within(gotify).getByTestId('channel-state').textContent).toBe('Switched off');
    expect(within(gotify).getByRole('switch', { name: 'Send to Gotify' })).toHaveProperty('checked', false);
  });

  it('adds an ntfy channel with its token and uses it for reminders', { timeout: 15_000 }, async () => {
    const { fetchMock, channels } = openChannels([], {
      'POST /api/channels': (init) => {
        const created = channelJson({ id: 9, name: (sentJson(init) as { name: string }).name });
        channels.push(created);
        return ok(created, 201);
      },
    });
    const dialog = await openAddDialog();
    // ntfy first, with its hints on where to find each setting.
    expect(within(dialog).getByRole('radio', { name: /^ntfy/ })).toHaveProperty('checked', true);
    expect(dialog.textContent).toContain('The topic you subscribed to in the ntfy app.');
    expect(dialog.textContent).toContain("An access token from ntfy's Account page (tk_…).");
    expect(within(dialog).getByLabelText<HTMLInputElement>('Server address').value).toBe('https://ntfy.sh');

    fill(within(dialog).getByLabelText('Name'), 'Phone');
    fill(within(dialog).getByLabelText('Server address'), 'https://ntfy.example');
    fill(within(dialog).getByLabelText('Topic'), 'pills');
    fill(within(dialog).getByLabelText('Access token'), 'tk_secret');
    const useIt = within(dialog).getByRole('checkbox', { name: /Use for reminders/ });
    expect(useIt).toHaveProperty('checked', true);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add channel' }));

    const added = await screen.findByTestId('channel-added');
    expect(added.textContent).toBe('Phone (ntfy) added: reminders now go to it too.');
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/channels')[0]?.[1])).toEqual({
      kind: 'ntfy',
      name: 'Phone',
      config: { server_url: 'https://ntfy.example', topic: 'pills', token: 'tk_secret' },
    });
    // Added to the methods the general settings already had, as that screen saves them.
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/notifications/preferences')[0]?.[1])).toEqual({
      default_delivery_methods: ['push', 'channel:9'],
    });
    // No secret of its own to show for ntfy.
    expect(screen.queryByTestId('channel-secret')).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    const card = await channelsCard();
    expect(await within(card).findByRole('heading', { name: 'Phone' })).toBeTruthy();
  });

  it('shows the setting the server refused beside its field, and keeps what was typed', { timeout: 15_000 }, async () => {
    let answer = () => fail('topic may have only letters, digits, - and _, at most 64 of them', 400, 'channel_invalid', { field: 'topic' });
    const { fetchMock } = openChannels([], { 'POST /api/channels': () => answer() });
    const dialog = await openAddDialog();
    await userEvent.selectOptions(within(dialog).getByLabelText('Access'), 'none');
    fill(within(dialog).getByLabelText('Topic'), 'my pills');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add channel' }));

    const error = await within(dialog).findByTestId('channel-error-topic');
    expect(error.textContent).toBe('Enter the topic: letters, digits, - and _ only, at most 64.');
    const topic = within(dialog).getByLabelText<HTMLInputElement>('Topic');
    expect(topic.getAttribute('aria-invalid')).toBe('true');
    expect(topic.getAttribute('aria-describedby')).toContain(error.id);
    expect(topic.value).toBe('my pills');
    // No preferences were touched for a channel that was not added.
    expect(requestsTo(fetchMock, 'PUT', '/api/notifications/preferences')).toEqual([]);
    expect(within(dialog).queryByTestId('channel-error-server_url')).toBeNull();

    // A loopback address the operator has not allowed: said at the address.
    answer = () =>
      fail('This address is not allowed: loopback', 400, 'channel_address_not_allowed', { field: 'server_url' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add channel' }));
    const refused = await within(dialog).findByTestId('channel-error-server_url');
    expect(refused.textContent).toContain('channels.allow_networks');
    expect(within(dialog).queryByTestId('channel-error-topic')).toBeNull();

    // A setting this form does not show (no token with open access) is said above the form.
    answer = () => fail('token must be one line', 400, 'channel_invalid', { field: 'token' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add channel' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'The channel could not be added: Enter the token on one line, as it was shown.',
    );
  });

  it('asks for the token before sending when access by token is chosen', async () => {
    const { fetchMock } = openChannels([]);
    const dialog = await openAddDialog();
    fill(within(dialog).getByLabelText('Topic'), 'pills');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add channel' }));
    expect((await within(dialog).findByTestId('channel-error-token')).textContent).toBe(
      'Enter the token on one line, as it was shown.',
    );
    expect(requestsTo(fetchMock, 'POST', '/api/channels')).toEqual([]);
  });

  it('shows a webhook’s secret once, with Copy and a warning', { timeout: 15_000 }, async () => {
    const secret = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LW9mLTMyLWJ5dGVzISE=';
    const { fetchMock, channels } = openChannels([], {
      'POST /api/channels': () => {
        const created = channelJson({
          id: 12,
          kind: 'webhook',
          name: 'Webhook',
          config: { url: 'https://ha.example/hook', events: ['reminder.due'] },
        });
        channels.push(created);
        return ok({ ...created, secret }, 201);
      },
    });
    const dialog = await openAddDialog();
    await userEvent.click(within(dialog).getByRole('radio', { name: /^Webhook/ }));
    expect(dialog.textContent).toContain('The URL that receives the events.');
    fill(within(dialog).getByLabelText('Address'), 'https://ha.example/hook');
    // Every event is chosen to begin with; this one wants only due reminders.
    for (const name of [
      'A reminder was answered',
      'A dose was logged',
      'A dose was missed',
      'Stock is running low',
      'A refill needs ordering',
      'A stock batch expires soon',
      'A stock batch has expired',
      'A carer was alerted',
    ]) {
      await userEvent.click(within(dialog).getByRole('checkbox', { name }));
    }
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /Use for reminders/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add channel' }));

    const shown = await screen.findByTestId('channel-secret');
    expect(within(shown).getByLabelText<HTMLInputElement>('Signing secret').value).toBe(secret);
    expect(shown.textContent).toContain('it will not be shown again');
    expect(within(shown).getByRole('button', { name: 'Copy secret' })).toBeTruthy();
    expect(screen.getByTestId('channel-added').textContent).toBe('Webhook added.');
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/channels')[0]?.[1])).toEqual({
      kind: 'webhook',
      name: '',
      config: { url: 'https://ha.example/hook', events: ['reminder.due'] },
    });
    // Not used for reminders: the preferences were left alone.
    expect(requestsTo(fetchMock, 'PUT', '/api/notifications/preferences')).toEqual([]);

    await userEvent.click(screen.getByRole('button', { name: 'Done' }));
    const card = await channelsCard();
    await within(card).findByRole('heading', { name: 'Webhook' });
    expect(document.body.textContent).not.toContain(secret);
  });

  it('adds a Telegram channel: the link to open in Telegram, and again while it waits for the chat', { timeout: 15_000 }, async () => {
    const link = 'https://t.me/pillbox_bot?start=first-code';
    const again = 'https://t.me/pillbox_bot?start=second-code';
    const telegram = channelJson({ id: 14, kind: 'telegram', name: 'Telegram', config: {}, secret_set: false, state: 'pending' });
    const { fetchMock, channels } = openChannels([], {
      'POST /api/channels': () => {
        channels.push(telegram);
        return ok({ ...telegram, link_url: link }, 201);
      },
      'POST /api/channels/14/link': () => ok({ ...telegram, link_url: again }),
    });
    const dialog = await openAddDialog();
    await userEvent.click(within(dialog).getByRole('radio', { name: /^Telegram/ }));
    expect(dialog.textContent).toContain("Opens a chat with this server's bot");
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add channel' }));

    const shown = await screen.findByTestId('telegram-link');
    expect(within(shown).getByRole('link', { name: 'Open in Telegram' }).getAttribute('href')).toBe(link);
    expect(within(shown).getByRole('button', { name: 'Copy link' })).toBeTruthy();
    expect(screen.getByRole('dialog').textContent).toContain('Until then the channel waits for the chat.');
    // Not "reminders now go to it": a chat not linked yet gets none.
    expect(screen.getByTestId('channel-added').textContent).toBe('Telegram added: reminders go to it too once the chat is linked.');
    await userEvent.click(screen.getByRole('button', { name: 'Done' }));

    const card = await channelsCard();
    const row = await within(card).findByTestId('channel-row');
    expect(within(row).getByTestId('channel-state').textContent).toBe('Waiting for the chat');
    expect(within(row).getByTestId('channel-pending').textContent).toContain('open the link in Telegram');
    await userEvent.click(within(row).getByRole('button', { name: 'Show the link' }));
    const relinked = await within(row).findByTestId('telegram-link');
    expect(within(relinked).getByRole('link', { name: 'Open in Telegram' }).getAttribute('href')).toBe(again);
    expect(requestsTo(fetchMock, 'POST', '/api/channels/14/link')).toHaveLength(1);
  });

  it('a Telegram chat that sent /stop says so and can be linked again', async () => {
    openChannels([
      channelJson({ id: 15, kind: 'telegram', name: 'Telegram', config: {}, state: 'disabled', state_reason: 'telegram_stopped' }),
    ]);
    const row = await within(await channelsCard()).findByTestId('channel-row');
    expect(within(row).getByTestId('channel-disabled-reason').textContent).toContain('The chat sent /stop');
    expect(within(row).getByRole('button', { name: 'Link the chat again' })).toBeTruthy();
  });

  it('sends a test and shows the channel’s own answer, taken or refused', async () => {
    let answer: () => Response = () =>
      ok({ ok: true, detail: 'ntfy took the test message', code: 'channel_sent', params: { name: 'Phone', kind: 'ntfy' } });
    const { fetchMock } = openChannels([channelJson()], { 'POST /api/channels/5/test': () => answer() });
    const row = await within(await channelsCard()).findByTestId('channel-row');
    await userEvent.click(within(row).getByRole('button', { name: 'Send test' }));
    const result = await within(row).findByTestId('channel-test-result');
    expect(result.textContent).toBe('The test reached Phone. Its answer: ntfy took the test message');
    expect(result.getAttribute('role')).toBe('status');

    answer = () =>
      jsonResponse(
        {
          success: false,
          message: 'Phone: ntfy answered 401: the access token was refused',
          code: 'delivery_failed',
          data: {
            ok: false,
            detail: 'ntfy answered 401: the access token was refused',
            code: 'channel_failed',
            params: { name: 'Phone', kind: 'ntfy', detail: 'ntfy answered 401: the access token was refused' },
          },
        },
        502,
      );
    await userEvent.click(within(row).getByRole('button', { name: 'Send test' }));
    await waitFor(() =>
      expect(within(row).getByTestId('channel-test-result').textContent).toBe(
        'The test did not reach Phone. Its answer: ntfy answered 401: the access token was refused',
      ),
    );
    expect(within(row).getByTestId('channel-test-result').getAttribute('role')).toBe('alert');
    expect(requestsTo(fetchMock, 'POST', '/api/channels/5/test')).toHaveLength(2);
  });

  it('switches a channel off, renames it, and deletes it after asking', { timeout: 15_000 }, async () => {
    const { fetchMock, channels } = openChannels([channelJson()], {
      'PUT /api/channels/5': (init) => {
        const changes = sentJson(init) as Record<string, unknown>;
        Object.assign(channels[0] ?? {}, changes);
        return ok(channels[0]);
      },
      'DELETE /api/channels/5': () => {
        channels.pop();
        return jsonResponse({ success: true, message: 'Channel deleted' });
      },
    });
    const card = await channelsCard();
    const row = await within(card).findByTestId('channel-row');
    await userEvent.click(within(row).getByRole('switch', { name: 'Send to Phone' }));
    expect(await within(card).findByText('Phone is off: no reminders go to it until you switch it on.')).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/channels/5')[0]?.[1])).toEqual({ enabled: false });
    await waitFor(() => expect(within(row).getByTestId('channel-state').textContent).toBe('Switched off'));

    await userEvent.click(within(row).getByRole('button', { name: 'Rename' }));
    const name = within(row).getByLabelText('New name for Phone');
    fill(name, 'Pixel');
    await userEvent.click(within(row).getByRole('button', { name: 'Save' }));
    expect(await within(card).findByText('Renamed to Pixel')).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/channels/5')[1]?.[1])).toEqual({ name: 'Pixel' });

    await userEvent.click(await within(row).findByRole('button', { name: 'Delete' }));
    const confirm = screen.getByRole('dialog', { name: 'Delete Pixel?' });
    expect(confirm.textContent).toContain('Reminders stop going to Pixel.');
    expect(requestsTo(fetchMock, 'DELETE', '/api/channels/5')).toEqual([]);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete channel' }));
    expect(await within(card).findByText('You have no channels yet.')).toBeTruthy();
    expect(requestsTo(fetchMock, 'DELETE', '/api/channels/5')).toHaveLength(1);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('changes an ntfy channel’s settings: prefilled, the saved token left out, the new topic shown', { timeout: 15_000 }, async () => {
    const { fetchMock } = openChannels([channelJson()], (list) => ({
      'PUT /api/channels/5': changeSettingsRoute(list, 5),
    }));
    const { row, dialog } = await openSettings();

    const server = within(dialog).getByLabelText<HTMLInputElement>('Server address');
    expect(server.value).toBe('https://ntfy.example');
    expect(within(dialog).getByLabelText<HTMLInputElement>('Topic').value).toBe('pills');
    expect(within(dialog).getByLabelText<HTMLSelectElement>('Access').value).toBe('token');
    // The token is never answered: the field is empty and says the saved one stays.
    const token = within(dialog).getByLabelText<HTMLInputElement>('Access token');
    expect(token.value).toBe('');
    expect(token.type).toBe('password');
    expect(hintOf(token)).toBe('Leave empty to keep the saved token.');
    expect(within(dialog).getByRole('checkbox', { name: /Remove the token/ })).toHaveProperty('checked', false);

    fill(within(dialog).getByLabelText('Topic'), 'meds');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    const card = await channelsCard();
    expect(await within(card).findByText('Settings of Phone saved')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(requestsTo(fetchMock, 'PUT', '/api/channels/5').map(([, init]) => sentJson(init))).toEqual([
      { config: { server_url: 'https://ntfy.example', topic: 'meds' } },
    ]);
    await waitFor(() => expect(within(row).getByTestId('channel-summary').textContent).toBe('https://ntfy.example, topic meds'));
  });

  it('"Remove the token" sends the token as null; a new one typed is sent', { timeout: 15_000 }, async () => {
    const { fetchMock, channels } = openChannels([channelJson()], (list) => ({
      'PUT /api/channels/5': changeSettingsRoute(list, 5),
    }));
    let { dialog } = await openSettings();
    fill(within(dialog).getByLabelText('Access token'), 'tk_typed_then_removed');
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /Remove the token/ }));
    expect(within(dialog).getByLabelText('Access token')).toHaveProperty('disabled', true);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/channels/5')[0]?.[1])).toEqual({
      config: { server_url: 'https://ntfy.example', topic: 'pills', token: null },
    });

    // Without a token the topic is open: that is how the form shows it next time.
    await waitFor(() => expect(channels[0]?.secret_set).toBe(false));
    ({ dialog } = await openSettings());
    await waitFor(() => expect(within(dialog).getByLabelText<HTMLSelectElement>('Access').value).toBe('none'));
    await userEvent.selectOptions(within(dialog).getByLabelText('Access'), 'token');
    // No token saved any more: one must be typed.
    expect(hintOf(within(dialog).getByLabelText('Access token'))).toBe("An access token from ntfy's Account page (tk_…).");
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect((await within(dialog).findByTestId('channel-error-token')).textContent).toBe('Enter the token on one line, as it was shown.');
    expect(requestsTo(fetchMock, 'PUT', '/api/channels/5')).toHaveLength(1);
    fill(within(dialog).getByLabelText('Access token'), ' tk_new ');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/channels/5')[1]?.[1])).toEqual({
      config: { server_url: 'https://ntfy.example', topic: 'pills', token: 'tk_new' },
    });
  });

  it('shows a refused server address under its field and keeps the dialog open', { timeout: 15_000 }, async () => {
    let refuse: () => Response | null = () =>
      fail('This address is not allowed: loopback', 400, 'channel_address_not_allowed', { field: 'server_url' });
    const { fetchMock, channels } = openChannels([channelJson()], (list) => ({
      'PUT /api/channels/5': changeSettingsRoute(list, 5, () => refuse()),
    }));
    const { dialog } = await openSettings();
    fill(within(dialog).getByLabelText('Server address'), 'http://127.0.0.1:8080');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    const error = await within(dialog).findByTestId('channel-error-server_url');
    expect(error.textContent).toContain('channels.allow_networks');
    const server = within(dialog).getByLabelText<HTMLInputElement>('Server address');
    expect(server.getAttribute('aria-invalid')).toBe('true');
    expect(server.getAttribute('aria-describedby')).toContain(error.id);
    expect(server.value).toBe('http://127.0.0.1:8080');
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/channels/5')[0]?.[1])).toEqual({
      config: { server_url: 'http://127.0.0.1:8080', topic: 'pills' },
    });

    // A setting this form does not show (a user name, with access by token) is said above it.
    refuse = () => fail('username must be one line', 400, 'channel_invalid', { field: 'username' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'The channel could not be changed: Enter the user name on one line.',
    );
    expect(within(dialog).queryByTestId('channel-error-server_url')).toBeNull();
    expect(channels[0]?.config).toEqual({ server_url: 'https://ntfy.example', topic: 'pills' });
  });

  it('changes Gotify and webhook settings; a Telegram channel has none', { timeout: 15_000 }, async () => {
    const { fetchMock } = openChannels([
      channelJson({ id: 7, kind: 'gotify', name: 'Gotify', config: { server_url: 'https://gotify.example' } }),
      channelJson({
        id: 6,
        kind: 'webhook',
        name: 'Home Assistant',
        config: { url: 'https://ha.example/hook', events: ['reminder.due', 'dose.logged'] },
      }),
      channelJson({ id: 15, kind: 'telegram', name: 'Telegram', config: {}, secret_set: false }),
    ], (list) => ({
      'PUT /api/channels/7': changeSettingsRoute(list, 7),
      'PUT /api/channels/6': changeSettingsRoute(list, 6),
    }));

    let { dialog } = await openSettings(0);
    expect(within(dialog).getByLabelText<HTMLInputElement>('Server address').value).toBe('https://gotify.example');
    const token = within(dialog).getByLabelText<HTMLInputElement>('Application token');
    expect(token.value).toBe('');
    expect(hintOf(token)).toBe('Leave empty to keep the saved token.');
    // Gotify needs its token: there is nothing to remove.
    expect(within(dialog).queryByRole('checkbox', { name: /Remove the token/ })).toBeNull();
    fill(token, 'A_new_app_token');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/channels/7')[0]?.[1])).toEqual({
      config: { server_url: 'https://gotify.example', token: 'A_new_app_token' },
    });

    ({ dialog } = await openSettings(1));
    expect(within(dialog).getByLabelText<HTMLInputElement>('Address').value).toBe('https://ha.example/hook');
    expect(within(dialog).getByRole('checkbox', { name: 'A reminder is due' })).toHaveProperty('checked', true);
    expect(within(dialog).getByRole('checkbox', { name: 'A dose was logged' })).toHaveProperty('checked', true);
    expect(within(dialog).getByRole('checkbox', { name: 'A dose was missed' })).toHaveProperty('checked', false);
    await userEvent.click(within(dialog).getByRole('checkbox', { name: 'A dose was missed' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/channels/6')[0]?.[1])).toEqual({
      config: { url: 'https://ha.example/hook', events: ['reminder.due', 'dose.logged', 'dose.missed'] },
    });
    const rows = within(await channelsCard()).getAllByTestId('channel-row');
    await waitFor(() => expect(rows[1]?.textContent).toContain('Events: A reminder is due · A dose was logged · A dose was missed'));

    const telegram = rows[2];
    if (!telegram) throw new Error('row missing');
    expect(within(telegram).getByRole('button', { name: 'Rename' })).toBeTruthy();
    expect(within(telegram).queryByRole('button', { name: 'Change settings' })).toBeNull();
  });

  it('speaks the person’s language: German with "Sie"', async () => {
    localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify({ language: 'de' }));
    openChannels([channelJson({ kind: 'telegram', name: 'Telegram', config: {}, state: 'pending' })]);
    const card = await screen.findByTestId('channels-card');
    expect(within(card).getByRole('heading', { name: 'Kanäle' })).toBeTruthy();
    const row = await within(card).findByTestId('channel-row');
    expect(within(row).getByTestId('channel-state').textContent).toBe('Wartet auf den Chat');
    expect(within(row).getByTestId('channel-pending').textContent).toBe(
      'Wartet auf den Chat: Öffnen Sie den Link in Telegram und tippen Sie auf Start.',
    );
  });
});

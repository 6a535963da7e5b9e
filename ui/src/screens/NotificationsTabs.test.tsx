import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { disabledState } from '../test/disabledReason';
import { deferred, jsonResponse, requestUrl, sentJson, type Route } from '../test/fetchMock';
import { fail, medsServer, ok, requestsTo, signInForMeds } from '../test/medications';
import { ENDPOINT, PUBLIC_KEY, installFakePush, type FakePushOptions } from '../test/push';
import { renderApp } from '../test/renderApp';
import { formatDateTime } from '../medications/format';
import { DEFAULT_SETTINGS, SETTINGS_STORAGE_KEY } from '../settings/appSettings';

let removePush: (() => boolean) | null = null;

afterEach(() => {
  removePush?.();
  removePush = null;
});

function fakePush(options: FakePushOptions) {
  const fake = installFakePush(options);
  removePush = fake.remove;
  return fake;
}

function preferences(methods: string[]) {
  return ok({
    email_notifications_enabled: methods.includes('email'),
    push_notifications_enabled: true,
    notification_sound_enabled: true,
    notification_vibration_enabled: true,
    default_reminder_minutes_before: 15,
    default_delivery_methods: methods,
    reminders_enabled: true,
    repeat_interval_minutes: 10,
    repeat_max: 3,
    email_available: true,
  });
}

function server(routes: Record<string, Route>) {
  signInForMeds();
  return medsServer({
    'GET /api/notifications': () => jsonResponse({ success: true, data: [], pagination: { total: 0 } }),
    'GET /api/notifications/push/public-key': () => ok({ publicKey: PUBLIC_KEY }),
    'POST /api/notifications/push/register': () => jsonResponse({ success: true, message: 'Push subscription saved' }, 201),
    'POST /api/notifications/push/unregister': () => jsonResponse({ success: true, message: 'Push subscription removed' }),
    ...routes,
  });
}

async function openTab(name: 'Settings' | 'History') {
  renderApp('/notifications');
  await userEvent.click(await screen.findByRole('tab', { name }));
  return screen.getByRole('tabpanel');
}

async function pushCard() {
  const panel = await openTab('Settings');
  return within(panel).getByTestId('push-card');
}

describe('Notifications settings: push card', () => {
  it('shows Not Set, subscribes on the checkbox and shows Subscribed', async () => {
    const fake = fakePush({ permission: 'default' });
    const fetchMock = server({});
    const card = await pushCard();
    expect(within(card).getByTestId('push-permission').textContent).toBe('Not Set');
    const checkbox = within(card).getByRole('checkbox', { name: 'Send push notifications to this device' });
    await waitFor(() => expect((checkbox as HTMLInputElement).disabled).toBe(false));
    expect((checkbox as HTMLInputElement).checked).toBe(false);
    expect(within(card).queryByTestId('push-subscribed')).toBeNull();

    await userEvent.click(checkbox);
    expect((await within(card).findByTestId('push-subscribed')).textContent).toBe('Subscribed');
    expect(within(card).getByTestId('push-permission').textContent).toBe('Enabled');
    expect((checkbox as HTMLInputElement).checked).toBe(true);
    expect(fake.pushManager.subscribe).toHaveBeenCalledTimes(1);
    const [register] = requestsTo(fetchMock, 'POST', '/api/notifications/push/register');
    expect(sentJson(register?.[1])).toMatchObject({ subscription: { endpoint: ENDPOINT }, userAgent: navigator.userAgent });
  });

  it('a dismissed permission prompt leaves push clearly off, with the reason', async () => {
    fakePush({ permission: 'default', answer: 'default' });
    const fetchMock = server({});
    const card = await pushCard();
    const checkbox = within(card).getByRole<HTMLInputElement>('checkbox', { name: 'Send push notifications to this device' });
    await waitFor(() => expect(checkbox.disabled).toBe(false));
    await userEvent.click(checkbox);
    expect((await within(card).findByRole('alert')).textContent).toContain('Notification permission not granted');
    expect(checkbox.checked).toBe(false);
    expect(checkbox.disabled).toBe(false);
    expect(within(card).getByTestId('push-permission').textContent).toBe('Not Set');
    expect(requestsTo(fetchMock, 'POST', '/api/notifications/push/register')).toHaveLength(0);
  });

  it('does not lock the switch while a permission prompt never answers', async () => {
    const fake = fakePush({ permission: 'default' });
    fake.requestPermission.mockImplementation(() => new Promise<NotificationPermission>(() => undefined));
    server({});
    const card = await pushCard();
    const checkbox = within(card).getByRole<HTMLInputElement>('checkbox', { name: 'Send push notifications to this device' });
    await waitFor(() => expect(checkbox.disabled).toBe(false));
    await userEvent.click(checkbox);
    expect((await within(card).findByTestId('push-asking')).textContent).toContain('Waiting for your answer');
    expect(checkbox.disabled).toBe(false);

    await userEvent.click(checkbox);
    expect(within(card).queryByTestId('push-asking')).toBeNull();
    expect(within(card).getByRole('alert').textContent).toContain('Notification permission not granted');
    expect(checkbox.checked).toBe(false);
    expect(checkbox.disabled).toBe(false);
    expect(fake.pushManager.subscribe).not.toHaveBeenCalled();
  });

  it('unsubscribes a subscribed browser', async () => {
    const fake = fakePush({ permission: 'granted', subscribed: true });
    const subscription = fake.state.subscription;
    const fetchMock = server({});
    const card = await pushCard();
    expect(within(card).getByTestId('push-permission').textContent).toBe('Enabled');
    expect((await within(card).findByTestId('push-subscribed')).textContent).toBe('Subscribed');

    await userEvent.click(within(card).getByRole('checkbox'));
    await waitFor(() => expect(within(card).queryByTestId('push-subscribed')).toBeNull());
    const [unregister] = requestsTo(fetchMock, 'POST', '/api/notifications/push/unregister');
    expect(sentJson(unregister?.[1])).toEqual({ endpoint: ENDPOINT });
    expect(subscription?.unsubscribe).toHaveBeenCalledTimes(1);
    expect(within(card).getByRole<HTMLInputElement>('checkbox').checked).toBe(false);
  });

  it('only alerts when notifications are blocked', async () => {
    const fake = fakePush({ permission: 'denied' });
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => undefined);
    const fetchMock = server({});
    const card = await pushCard();
    expect(within(card).getByTestId('push-permission').textContent).toBe('Blocked');
    const checkbox = within(card).getByRole('checkbox');
    await waitFor(() => expect((checkbox as HTMLInputElement).disabled).toBe(false));

    await userEvent.click(checkbox);
    expect(alert).toHaveBeenCalledWith('Push notifications are blocked. Please enable them in your browser settings.');
    expect(fake.requestPermission).not.toHaveBeenCalled();
    expect(fake.pushManager.subscribe).not.toHaveBeenCalled();
    expect(requestsTo(fetchMock, 'POST', '/api/notifications/push/register')).toHaveLength(0);
    expect((checkbox as HTMLInputElement).checked).toBe(false);
  });

  it('leaves push off when the server does not send to this browser’s subscription, and says so', async () => {
    fakePush({ permission: 'granted', subscribed: true });
    const fetchMock = server({
      'POST /api/notifications/push/status': () => ok({ registered: false, devices: 0 }),
    });
    const card = await pushCard();
    const checkbox = within(card).getByRole<HTMLInputElement>('checkbox', { name: 'Send push notifications to this device' });
    expect((await within(card).findByTestId('push-stale')).textContent).toContain('Pillbox no longer sends to it');
    expect(checkbox.checked).toBe(false);
    expect(within(card).queryByTestId('push-subscribed')).toBeNull();
    const [status] = requestsTo(fetchMock, 'POST', '/api/notifications/push/status');
    expect(sentJson(status?.[1])).toEqual({ endpoint: ENDPOINT });

    // Turned on, the browser's subscription is registered again.
    await userEvent.click(checkbox);
    expect((await within(card).findByTestId('push-subscribed')).textContent).toBe('Subscribed');
    expect(requestsTo(fetchMock, 'POST', '/api/notifications/push/register')).toHaveLength(1);
  });

  it('shows a subscribed device on, with how many devices take reminders', async () => {
    fakePush({ permission: 'granted', subscribed: true });
    server({ 'POST /api/notifications/push/status': () => ok({ registered: true, devices: 2 }) });
    const card = await pushCard();
    expect((await within(card).findByTestId('push-subscribed')).textContent).toBe('Subscribed');
    expect(within(card).getByTestId('push-devices').textContent).toBe('Reminders go to 2 devices of yours.');
  });

  it('says why a refused permission leaves push off', async () => {
    fakePush({ permission: 'denied', subscribed: true });
    server({ 'POST /api/notifications/push/status': () => ok({ registered: true, devices: 1 }) });
    const card = await pushCard();
    expect((await within(card).findByTestId('push-blocked')).textContent).toContain(
      'Notifications are blocked for Pillbox in this browser',
    );
    await waitFor(() => expect(within(card).getByRole<HTMLInputElement>('checkbox').disabled).toBe(false));
    expect(within(card).getByRole<HTMLInputElement>('checkbox').checked).toBe(false);
  });

  it('says why subscribing failed', async () => {
    fakePush({ permission: 'default', answer: 'denied' });
    server({});
    const card = await pushCard();
    const checkbox = within(card).getByRole('checkbox');
    await waitFor(() => expect((checkbox as HTMLInputElement).disabled).toBe(false));
    await userEvent.click(checkbox);
    const alert = await within(card).findByRole('alert');
    expect(alert.textContent).toContain('Failed to toggle push notifications');
    expect(alert.textContent).toContain('Notification permission denied');
    expect(within(card).getByTestId('push-permission').textContent).toBe('Blocked');
  });

  it('shows the server refusal of a push service', async () => {
    fakePush({ permission: 'granted' });
    server({ 'POST /api/notifications/push/register': () => fail('This push service is not allowed', 400, 'push_service_not_allowed') });
    const card = await pushCard();
    const checkbox = within(card).getByRole('checkbox');
    await waitFor(() => expect((checkbox as HTMLInputElement).disabled).toBe(false));
    await userEvent.click(checkbox);
    expect((await within(card).findByRole('alert')).textContent).toContain('This push service is not allowed');
    expect(within(card).queryByTestId('push-subscribed')).toBeNull();
  });

  it('explains a browser without push and offers no checkbox to use', async () => {
    server({});
    const card = await pushCard();
    expect(within(card).getByTestId('push-permission').textContent).toBe('Not Set');
    expect(within(card).getByTestId('push-support').textContent).toContain('cannot receive push notifications');
    const why = within(card).getByTestId('push-support').textContent;
    expect(disabledState(within(card).getByRole('checkbox'))).toEqual({ disabled: true, reason: why, title: why });
  });

  it('says why the switch waits while this device’s subscription is looked up', async () => {
    fakePush({ permission: 'granted', subscribed: true });
    const status = deferred<Response>();
    server({ 'POST /api/notifications/push/status': () => status.promise });
    const card = await pushCard();
    const checkbox = within(card).getByRole<HTMLInputElement>('checkbox', { name: 'Send push notifications to this device' });
    const checking = 'Checking whether this device gets push notifications...';
    await waitFor(() => expect(disabledState(checkbox)).toEqual({ disabled: true, reason: checking, title: checking }));

    status.resolve(ok({ registered: true, devices: 1 }));
    await waitFor(() => expect(disabledState(checkbox)).toEqual({ disabled: false, reason: null, title: null }));
    expect(checkbox.checked).toBe(true);
  });
});

describe('Notifications settings: other cards', () => {
  it('opens the preferences dialog from Configure and links to Medications', async () => {
    server({ 'GET /api/notifications/preferences': () => preferences(['push']) });
    const panel = await openTab('Settings');
    const general = within(panel).getByTestId('general-card');
    expect(within(general).getByRole('heading', { name: 'General Settings' })).toBeTruthy();
    await userEvent.click(within(general).getByRole('button', { name: 'Configure' }));
    expect(await screen.findByRole('dialog')).toBeTruthy();

    const perMedication = within(panel).getByTestId('per-medication-card');
    expect(within(perMedication).getByRole('link', { name: 'Go to Medications' }).getAttribute('href')).toBe(
      '/medications',
    );
  });

  it('sends a test over the default delivery methods', async () => {
    const test = vi.fn(() =>
      ok({ results: [{ channel: 'email', ok: true, detail: 'Sent to pat@example.com' }] }),
    );
    const fetchMock = server({
      'GET /api/notifications/preferences': () => preferences(['email']),
      'POST /api/notifications/test': test,
    });
    const panel = await openTab('Settings');
    const card = within(panel).getByTestId('test-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Send Test Notification' }));
    expect((await within(card).findByTestId('test-outcome')).textContent).toBe('Test notification sent!');
    expect(within(card).getByRole('status').textContent).toContain('E-mail delivered: Sent to pat@example.com');
    const [sent] = requestsTo(fetchMock, 'POST', '/api/notifications/test');
    expect(sentJson(sent?.[1])).toEqual({ deliveryMethods: ['email'] });
  });

  it('says when no test could be sent, with each channel', async () => {
    server({
      'GET /api/notifications/preferences': () => preferences(['push', 'email']),
      'POST /api/notifications/test': () =>
        jsonResponse(
          {
            success: false,
            code: 'delivery_failed',
            message: 'No notification could be sent',
            data: {
              results: [
                { channel: 'push', ok: false, detail: 'No device is subscribed' },
                { channel: 'email', ok: false, detail: 'E-mail is not configured on this server' },
              ],
            },
          },
          502,
        ),
    });
    const panel = await openTab('Settings');
    const card = within(panel).getByTestId('test-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Send Test Notification' }));
    const alert = await within(card).findByRole('alert');
    expect(within(alert).getByTestId('test-outcome').textContent).toBe(
      'Failed to send test notification. Make sure notifications are enabled.',
    );
    expect(alert.textContent).toContain('Push not delivered: No device is subscribed');
    expect(alert.textContent).toContain('E-mail not delivered: E-mail is not configured on this server');
  });

  it("gives the server's reason when nothing could be tried", async () => {
    server({
      'GET /api/notifications/preferences': () => preferences([]),
      'POST /api/notifications/test': () =>
        jsonResponse(
          {
            success: false,
            code: 'delivery_failed',
            message: 'No notification could be sent: no delivery method was chosen',
            data: { results: [] },
          },
          409,
        ),
    });
    const panel = await openTab('Settings');
    const card = within(panel).getByTestId('test-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Send Test Notification' }));
    const alert = await within(card).findByRole('alert');
    expect(alert.textContent).toContain('Nothing was sent: no delivery method is chosen in your general settings');
  });
});

function deliveryJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 12,
    notification_id: 40,
    kind: 'reminder',
    title: 'Time for Aspirin',
    medication_name: 'Aspirin',
    channel: 'push',
    attempted_at: '2026-11-21T09:00:03Z',
    result: 'sent',
    error: null,
    fallback: false,
    ...overrides,
  };
}

function historyPage(items: Record<string, unknown>[], total: number, offset = 0) {
  return jsonResponse({ success: true, data: items, pagination: { total, limit: 50, offset } });
}

describe('Notifications history', () => {
  it('lists deliveries with channel, time, result, error and fallback', async () => {
    const fetchMock = server({
      'GET /api/notifications/history': () =>
        historyPage(
          [
            deliveryJson({ id: 14, channel: 'email', fallback: true }),
            deliveryJson({ id: 13, result: 'failed', error: 'Push service answered 500' }),
            deliveryJson({ id: 12, kind: 'test', title: 'Test notification', medication_name: null }),
          ],
          3,
        ),
    });
    const panel = await openTab('History');
    const rows = await within(panel).findAllByTestId('delivery-row');
    expect(rows).toHaveLength(3);
    const [fallback, failed, test] = rows;
    if (!fallback || !failed || !test) throw new Error('rows missing');

    expect(within(fallback).getByRole('heading', { name: 'Time for Aspirin' })).toBeTruthy();
    expect(within(fallback).getByText('Aspirin')).toBeTruthy();
    expect(within(fallback).getByTestId('delivery-channel').textContent).toBe('E-mail');
    expect(within(fallback).getByTestId('delivery-time').textContent).toBe(
      formatDateTime('2026-11-21T09:00:03Z', DEFAULT_SETTINGS, 'en'),
    );
    expect(within(fallback).getByTestId('delivery-result').textContent).toBe('Sent');
    expect(within(fallback).getByTestId('delivery-result').classList.contains('badge-on')).toBe(true);
    expect(within(fallback).getByTestId('delivery-fallback').textContent).toContain('fallback to e-mail');
    expect(within(fallback).queryByTestId('delivery-error')).toBeNull();

    expect(within(failed).getByTestId('delivery-channel').textContent).toBe('Push');
    expect(within(failed).getByTestId('delivery-result').textContent).toBe('Failed');
    expect(within(failed).getByTestId('delivery-result').classList.contains('badge-danger')).toBe(true);
    expect(within(failed).getByTestId('delivery-error').textContent).toBe('Push service answered 500');
    expect(within(failed).queryByTestId('delivery-fallback')).toBeNull();

    expect(within(test).getByTestId('delivery-kind').textContent).toBe('Test');
    expect(within(fallback).queryByTestId('delivery-kind')).toBeNull();

    expect(within(panel).getByTestId('history-summary').textContent).toBe('Showing 3 of 3');
    expect(within(panel).queryByRole('button', { name: 'Load more' })).toBeNull();
    const query = fetchMock.mock.calls
      .map(([input]) => new URL(requestUrl(input), 'http://x'))
      .find((url) => url.pathname === '/api/notifications/history');
    expect(query?.searchParams.get('limit')).toBe('50');
    expect(query?.searchParams.get('offset')).toBe('0');
  });

  it("names each channel's delivery by the channel's name and kind, with its result in words", async () => {
    const refused = 'ntfy answered 401: the access token was refused';
    server({
      'GET /api/notifications/history': () =>
        historyPage(
          [
            deliveryJson({
              id: 23,
              channel: 'channel:7',
              channel_kind: 'ntfy',
              channel_name: 'Phone',
              result: 'failed',
              error: refused,
              result_code: 'channel_failed',
              result_params: { name: 'Phone', kind: 'ntfy', detail: refused, retrying: true },
            }),
            deliveryJson({
              id: 22,
              channel: 'channel:8',
              channel_kind: 'telegram',
              channel_name: 'Kim on Telegram',
              result: 'failed',
              error: 'Kim on Telegram: the Telegram chat is not linked yet',
              result_code: 'channel_unavailable',
              result_params: { name: 'Kim on Telegram', kind: 'telegram', state: 'pending', enabled: true },
            }),
            deliveryJson({
              id: 21,
              channel: 'channel:7',
              channel_kind: 'ntfy',
              channel_name: 'Phone',
              result_code: 'channel_sent',
              result_params: { name: 'Phone', kind: 'ntfy' },
            }),
            // A channel deleted since: its name and kind are kept with the row.
            deliveryJson({
              id: 20,
              channel: 'channel:3',
              channel_kind: 'webhook',
              channel_name: 'Old hook',
              result: 'failed',
              error: 'the channel was deleted',
              result_code: 'channel_unavailable',
              result_params: {},
            }),
          ],
          4,
        ),
    });
    const panel = await openTab('History');
    const [failed, waiting, sent, deleted] = await within(panel).findAllByTestId('delivery-row');
    if (!failed || !waiting || !sent || !deleted) throw new Error('rows missing');

    expect(within(failed).getByTestId('delivery-channel').textContent).toBe('Phone (ntfy)');
    expect(within(failed).getByTestId('delivery-error').textContent).toBe(
      `Phone did not take it: ${refused} (trying again)`,
    );
    expect(within(waiting).getByTestId('delivery-channel').textContent).toBe('Kim on Telegram (Telegram)');
    expect(within(waiting).getByTestId('delivery-error').textContent).toBe(
      'not sent to Kim on Telegram (waiting for its Telegram chat)',
    );
    expect(within(sent).getByTestId('delivery-channel').textContent).toBe('Phone (ntfy)');
    expect(within(sent).getByTestId('delivery-result').textContent).toBe('Sent');
    expect(within(sent).getByTestId('delivery-outcome').textContent).toBe('Phone took it');
    expect(within(deleted).getByTestId('delivery-channel').textContent).toBe('Old hook (Webhook)');
    expect(within(deleted).getByTestId('delivery-error').textContent).toBe('the channel was deleted');
  });

  it("says a channel's result in the person's language", async () => {
    localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify({ language: 'fr' }));
    server({
      'GET /api/notifications/history': () =>
        historyPage(
          [
            deliveryJson({
              channel: 'channel:7',
              channel_kind: 'gotify',
              channel_name: 'Maison',
              result: 'failed',
              error: 'Gotify answered 401: the application token was refused',
              result_code: 'channel_failed',
              result_params: { name: 'Maison', kind: 'gotify', detail: 'Gotify answered 401: the application token was refused', retrying: false },
            }),
          ],
          1,
        ),
    });
    renderApp('/notifications');
    await userEvent.click(await screen.findByRole('tab', { name: 'Historique' }));
    const row = await within(screen.getByRole('tabpanel')).findByTestId('delivery-row');
    expect(within(row).getByTestId('delivery-channel').textContent).toBe('Maison (Gotify)');
    expect(within(row).getByTestId('delivery-error').textContent).toBe(
      'Maison ne l’a pas acceptée : Gotify answered 401: the application token was refused',
    );
  });

  it('loads more from the next offset, without showing a delivery twice', async () => {
    const first = Array.from({ length: 50 }, (_, i) => deliveryJson({ id: 100 - i, title: `Reminder ${100 - i}` }));
    const fetchMock = server({
      'GET /api/notifications/history': () => {
        const calls = requestsTo(fetchMock, 'GET', '/api/notifications/history');
        const url = new URL(requestUrl(calls.at(-1)?.[0] ?? ''), 'http://x');
        return url.searchParams.get('offset') === '50'
          ? // A delivery made meanwhile shifted the offsets: Reminder 51 comes again.
            historyPage(
              [
                deliveryJson({ id: 51, title: 'Reminder 51' }),
                deliveryJson({ id: 50, title: 'Reminder 50' }),
                deliveryJson({ id: 49, title: 'Oldest' }),
              ],
              52,
              50,
            )
          : historyPage(first, 52);
      },
    });
    const panel = await openTab('History');
    expect(await within(panel).findAllByTestId('delivery-row')).toHaveLength(50);
    expect(within(panel).getByTestId('history-summary').textContent).toBe('Showing 50 of 52');
    await userEvent.click(within(panel).getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(panel).getAllByTestId('delivery-row')).toHaveLength(52));
    expect(within(panel).getAllByTestId('delivery-row').at(-1)?.textContent).toContain('Oldest');
    expect(within(panel).queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('has an empty state, and says when the history cannot be loaded', async () => {
    let failing = false;
    server({
      'GET /api/notifications/history': () =>
        failing ? jsonResponse({ success: false }, 500) : historyPage([], 0),
    });
    const panel = await openTab('History');
    expect((await within(panel).findByTestId('history-empty')).textContent).toContain('No notifications sent yet');

    failing = true;
    await userEvent.click(screen.getByRole('tab', { name: 'Settings' }));
    await userEvent.click(screen.getByRole('tab', { name: 'History' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to load notification history');
  });
});

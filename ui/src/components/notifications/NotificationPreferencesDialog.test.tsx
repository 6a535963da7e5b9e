import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { disabledState } from '../../test/disabledReason';
import { deferred, jsonResponse, mockFetch, sentJson } from '../../test/fetchMock';
import { fail, ok, requestsTo } from '../../test/medications';
import { renderWithQuery } from '../../test/queryClient';
import { NotificationPreferencesDialog } from './NotificationPreferencesDialog';
import { settle, advance } from '../../test/fakeClock';

const ASPIRIN = { id: 3, name: 'Aspirin' };

function globalJson(overrides: Record<string, unknown> = {}) {
  return {
    email_notifications_enabled: false,
    push_notifications_enabled: true,
    notification_sound_enabled: true,
    notification_vibration_enabled: true,
    default_reminder_minutes_before: 15,
    default_delivery_methods: ['push'],
    reminders_enabled: true,
    repeat_interval_minutes: 10,
    repeat_max: 3,
    email_available: true,
    ...overrides,
  };
}

function medicationJson(overrides: Record<string, unknown> = {}) {
  return {
    medication_id: 3,
    delivery_methods: ['push'],
    reminder_minutes_before: 15,
    custom_message: null,
    uses_defaults: false,
    ...overrides,
  };
}

const MED_PATH = '/api/notifications/medications/3/preferences';

function openFor(medication?: typeof ASPIRIN) {
  const onClose = vi.fn();
  renderWithQuery(<NotificationPreferencesDialog medication={medication} onClose={onClose} />);
  return { onClose, dialog: screen.getByRole('dialog') };
}

/** The person's channels as GET /api/channels answers them: one on, one switched off. */
const CHANNELS = [
  {
    id: 5,
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
    method: 'channel:5',
  },
  {
    id: 6,
    kind: 'telegram',
    name: 'Kim',
    config: {},
    secret_set: false,
    enabled: false,
    state: 'active',
    state_reason: null,
    last_result: null,
    last_result_at: null,
    created_at: '2026-11-25T08:00:00Z',
    method: 'channel:6',
  },
];

afterEach(() => {
  vi.useRealTimers();
});

describe('the preferences dialog for one medication', () => {
  it('loads, saves the chosen values and closes 1.5 s after "Preferences saved successfully!"', async () => {
    const fetchMock = mockFetch({
      [`GET ${MED_PATH}`]: () => ok(medicationJson({ custom_message: 'After breakfast' })),
      'GET /api/notifications/preferences': () => ok(globalJson()),
      [`PUT ${MED_PATH}`]: (init) =>
        ok(medicationJson({ ...(sentJson(init) as object), uses_defaults: false })),
    });
    const { onClose, dialog } = openFor(ASPIRIN);
    expect(screen.getByRole('dialog', { name: 'Notification Settings for Aspirin' })).toBe(dialog);
    expect(within(dialog).getByRole('status').textContent).toBe('Loading preferences...');

    const lead = await within(dialog).findByLabelText<HTMLSelectElement>('Remind me');
    expect(lead.value).toBe('15');
    expect([...lead.options].map((o) => o.textContent)).toEqual([
      'At the time of the dose',
      '5 minutes before',
      '10 minutes before',
      '15 minutes before',
      '30 minutes before',
      '1 hour before',
      '2 hours before',
    ]);
    expect(within(dialog).getByLabelText<HTMLInputElement>('Push notification').checked).toBe(true);
    expect(within(dialog).getByLabelText<HTMLInputElement>('E-mail').checked).toBe(false);
    expect(within(dialog).getByRole<HTMLInputElement>('switch', { name: /Use my default settings/ }).checked).toBe(
      false,
    );
    const message = within(dialog).getByLabelText<HTMLTextAreaElement>('Custom message (optional)');
    expect(message.value).toBe('After breakfast');
    expect(within(dialog).queryByTestId('email-unavailable')).toBeNull();

    await userEvent.selectOptions(lead, '30');
    await userEvent.click(within(dialog).getByLabelText('E-mail'));
    await userEvent.clear(message);
    await userEvent.type(message, '  With food ');

    vi.useFakeTimers();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    await settle();
    expect(sentJson(requestsTo(fetchMock, 'PUT', MED_PATH)[0]?.[1])).toEqual({
      delivery_methods: ['push', 'email'],
      reminder_minutes_before: 30,
      custom_message: 'With food',
    });
    expect(within(dialog).getByRole('status').textContent).toBe('Preferences saved successfully!');
    expect(within(dialog).getByRole<HTMLButtonElement>('button', { name: 'Save Settings' }).disabled).toBe(true);

    await advance(1490);
    expect(onClose).not.toHaveBeenCalled();
    await advance(10);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('sends nothing before its preferences have loaded', async () => {
    const held = deferred<Response>();
    const fetchMock = mockFetch({
      [`GET ${MED_PATH}`]: () => held.promise,
      'GET /api/notifications/preferences': () => ok(globalJson()),
      [`PUT ${MED_PATH}`]: () => ok(medicationJson()),
    });
    const { dialog } = openFor(ASPIRIN);
    const save = within(dialog).getByRole<HTMLButtonElement>('button', { name: 'Save Settings' });
    const test = within(dialog).getByRole<HTMLButtonElement>('button', { name: 'Test Notification' });
    // Both wait for the preferences, and point to the line that says they are loading.
    const loading = { disabled: true, reason: 'Loading preferences...', title: 'Loading preferences...' };
    expect(disabledState(save)).toEqual(loading);
    expect(disabledState(test)).toEqual(loading);
    fireEvent.click(save);
    expect(requestsTo(fetchMock, 'PUT', MED_PATH)).toEqual([]);

    held.resolve(ok(medicationJson()));
    await within(dialog).findByLabelText('Remind me');
    expect(disabledState(save)).toEqual({ disabled: false, reason: null, title: null });
    expect(disabledState(test)).toEqual({ disabled: false, reason: null, title: null });
  });

  it('while a test notification is sent, Save and Cancel say why they wait', async () => {
    const sent = deferred<Response>();
    mockFetch({
      [`GET ${MED_PATH}`]: () => ok(medicationJson()),
      'GET /api/notifications/preferences': () => ok(globalJson()),
      'POST /api/notifications/test': () => sent.promise,
    });
    const { dialog } = openFor(ASPIRIN);
    await within(dialog).findByLabelText('Remind me');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Test Notification' }));
    const why = 'Wait until the test notification is sent.';
    const waiting = { disabled: true, reason: why, title: why };
    expect(disabledState(within(dialog).getByRole('button', { name: 'Save Settings' }))).toEqual(waiting);
    expect(disabledState(within(dialog).getByRole('button', { name: 'Cancel' }))).toEqual(waiting);
    // The test's own button says what it does.
    expect(disabledState(within(dialog).getByRole('button', { name: 'Sending...' }))).toEqual({
      disabled: true,
      reason: null,
      title: null,
    });
    sent.resolve(jsonResponse({ success: true, message: 'Test notification sent!', data: { results: [] } }));
    expect((await within(dialog).findByRole('status')).textContent).toBe('Test notification sent!');
    expect(within(dialog).queryByText(why)).toBeNull();
  });

  it('"Use my default settings" shows the defaults and sends use_defaults', async () => {
    const fetchMock = mockFetch({
      [`GET ${MED_PATH}`]: () =>
        ok(medicationJson({ delivery_methods: ['email'], reminder_minutes_before: 5, custom_message: 'Mine' })),
      'GET /api/notifications/preferences': () =>
        ok(globalJson({ default_delivery_methods: ['push', 'email'], default_reminder_minutes_before: 60 })),
      [`PUT ${MED_PATH}`]: () =>
        ok(
          medicationJson({
            delivery_methods: ['push', 'email'],
            reminder_minutes_before: 60,
            uses_defaults: true,
          }),
        ),
    });
    const { dialog } = openFor(ASPIRIN);
    const lead = await within(dialog).findByLabelText<HTMLSelectElement>('Remind me');
    expect(lead.value).toBe('5');

    await userEvent.click(within(dialog).getByRole('switch', { name: /Use my default settings/ }));
    expect(lead.value).toBe('60');
    expect(lead.disabled).toBe(true);
    const push = within(dialog).getByLabelText<HTMLInputElement>('Push notification');
    expect(push.checked).toBe(true);
    expect(push.disabled).toBe(true);
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Custom message (optional)').value).toBe('');

    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    expect(await within(dialog).findByText('Preferences saved successfully!')).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'PUT', MED_PATH)[0]?.[1])).toEqual({ use_defaults: true });
  });

  it('shows which methods are really on: e-mail chosen while it is off globally sends nothing', async () => {
    mockFetch({
      [`GET ${MED_PATH}`]: () => ok(medicationJson({ delivery_methods: ['email'] })),
      'GET /api/notifications/preferences': () =>
        ok(globalJson({ email_notifications_enabled: false, default_delivery_methods: ['push'] })),
    });
    const { dialog } = openFor(ASPIRIN);
    const summary = await within(dialog).findByTestId('effective-methods');
    expect(summary.textContent).toContain("this medication's own methods");
    expect(within(summary).getByTestId('effective-push').textContent).toBe('Push notification: not chosen');
    expect(within(summary).getByTestId('effective-email').textContent).toBe(
      'E-mail: off, because it is switched off in your general notification settings',
    );
    expect(within(summary).getByRole('alert').textContent).toBe(
      'No reminder will go out for this medication: none of its methods is on.',
    );

    // Adding push fixes it; the defaults (push) would too.
    await userEvent.click(within(dialog).getByLabelText('Push notification'));
    expect(within(summary).getByTestId('effective-push').textContent).toBe('Push notification: on');
    expect(within(summary).queryByRole('alert')).toBeNull();
    await userEvent.click(within(dialog).getByRole('switch', { name: /Use my default settings/ }));
    expect(summary.textContent).toContain('your default methods');
    expect(within(summary).getByTestId('effective-email').textContent).toBe('E-mail: not chosen');
  });

  it('lists the person’s channels next to push and e-mail, and says which of them send', async () => {
    const fetchMock = mockFetch({
      [`GET ${MED_PATH}`]: () => ok(medicationJson({ delivery_methods: ['channel:5'] })),
      'GET /api/notifications/preferences': () => ok(globalJson()),
      'GET /api/channels': () => ok(CHANNELS),
      [`PUT ${MED_PATH}`]: (init) => ok(medicationJson({ ...(sentJson(init) as object) })),
    });
    const { dialog } = openFor(ASPIRIN);
    const phone = await within(dialog).findByLabelText<HTMLInputElement>('Phone (ntfy)');
    expect(phone.checked).toBe(true);
    expect(within(dialog).getByLabelText<HTMLInputElement>('Push notification').checked).toBe(false);
    const kim = within(dialog).getByLabelText<HTMLInputElement>('Kim (Telegram)');
    expect(kim.checked).toBe(false);
    expect(kim.closest('label')?.textContent).toContain('switched off');

    const summary = within(dialog).getByTestId('effective-methods');
    expect(within(summary).getByTestId('effective-channel:5').textContent).toBe('Phone (ntfy): on');
    // A channel that is on is enough: no warning that nothing goes out.
    expect(within(summary).queryByRole('alert')).toBeNull();

    await userEvent.click(kim);
    expect(within(summary).getByTestId('effective-channel:6').textContent).toBe(
      'Kim (Telegram): off, because the channel is switched off',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    expect(await within(dialog).findByText('Preferences saved successfully!')).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'PUT', MED_PATH)[0]?.[1])).toMatchObject({
      delivery_methods: ['channel:5', 'channel:6'],
    });
  });

  it('says e-mail cannot go out when the server cannot send e-mail', async () => {
    mockFetch({
      [`GET ${MED_PATH}`]: () => ok(medicationJson({ delivery_methods: ['push', 'email'] })),
      'GET /api/notifications/preferences': () =>
        ok(globalJson({ email_notifications_enabled: true, email_available: false })),
    });
    const { dialog } = openFor(ASPIRIN);
    const summary = await within(dialog).findByTestId('effective-methods');
    expect(within(summary).getByTestId('effective-email').textContent).toBe(
      'E-mail: off, because this server cannot send e-mail',
    );
    expect(within(summary).getByTestId('effective-push').textContent).toBe('Push notification: on');
  });

  it('starts from the defaults when the medication has none of its own, and can leave them', async () => {
    const fetchMock = mockFetch({
      [`GET ${MED_PATH}`]: () => ok(medicationJson({ uses_defaults: true })),
      [`PUT ${MED_PATH}`]: () => ok(medicationJson({ reminder_minutes_before: 120 })),
    });
    const { dialog } = openFor(ASPIRIN);
    const useDefaults = await within(dialog).findByRole<HTMLInputElement>('switch', {
      name: /Use my default settings/,
    });
    expect(useDefaults.checked).toBe(true);
    // Without the global preferences (404 here) the loaded values still show.
    expect(within(dialog).getByLabelText<HTMLSelectElement>('Remind me').value).toBe('15');

    await userEvent.click(useDefaults);
    await userEvent.selectOptions(within(dialog).getByLabelText('Remind me'), '120');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    expect(await within(dialog).findByText('Preferences saved successfully!')).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'PUT', MED_PATH)[0]?.[1])).toEqual({
      delivery_methods: ['push'],
      reminder_minutes_before: 120,
      custom_message: '',
    });
  });

  it('disables Test Notification without a method; a test says "Test notification sent!" and closes after 3 s', async () => {
    const fetchMock = mockFetch({
      [`GET ${MED_PATH}`]: () => ok(medicationJson()),
      'GET /api/notifications/preferences': () => ok(globalJson({ email_available: false })),
      'POST /api/notifications/test': () =>
        jsonResponse({
          success: true,
          message: 'Test notification sent!',
          data: {
            results: [{ channel: 'email', ok: false, detail: 'E-mail is not configured on this server' }],
          },
        }),
    });
    const { dialog, onClose } = openFor(ASPIRIN);
    const push = await within(dialog).findByLabelText('Push notification');
    expect(within(dialog).getByTestId('email-unavailable').textContent).toContain(
      "reminders by e-mail won't be sent until the administrator configures SMTP",
    );
    const test = within(dialog).getByRole<HTMLButtonElement>('button', { name: 'Test Notification' });
    expect(test.disabled).toBe(false);
    expect(within(dialog).queryByTestId('disabled-reason')).toBeNull();
    await userEvent.click(push);
    expect(test.disabled).toBe(true);
    // Why, in words on the screen (not only a tooltip), and named by the button.
    const reason = within(dialog).getByTestId('disabled-reason');
    expect(reason.textContent).toBe('Choose a delivery method to send a test.');
    expect(test.getAttribute('aria-describedby')).toBe(reason.id);
    await userEvent.click(within(dialog).getByLabelText('E-mail'));
    expect(test.disabled).toBe(false);
    expect(within(dialog).queryByTestId('disabled-reason')).toBeNull();

    vi.useFakeTimers();
    fireEvent.click(test);
    await settle();
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/notifications/test')[0]?.[1])).toEqual({
      deliveryMethods: ['email'],
    });
    expect(within(dialog).getByRole('status').textContent).toBe('Test notification sent!');
    expect(within(dialog).getByTestId('test-channel-problems').textContent).toBe(
      'E-mail: not sent (E-mail is not configured on this server)',
    );
    await advance(2990);
    expect(onClose).not.toHaveBeenCalled();
    await advance(10);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('says "Failed to send test notification" with the server message and stays open', async () => {
    mockFetch({
      [`GET ${MED_PATH}`]: () => ok(medicationJson()),
      'POST /api/notifications/test': () =>
        fail('No notification could be sent: push: no device is subscribed', 502, 'delivery_failed'),
    });
    const { dialog, onClose } = openFor(ASPIRIN);
    await within(dialog).findByLabelText('Remind me');
    vi.useFakeTimers();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Test Notification' }));
    await settle();
    expect(within(dialog).getByRole('alert').textContent).toBe(
      'Failed to send test notification: No notification could be sent: push: no device is subscribed',
    );
    await advance(5000);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('says "Failed to load preferences", with the server message when there is one', async () => {
    mockFetch({ [`GET ${MED_PATH}`]: () => fail('Medication not found', 404, 'medication_not_found') });
    const { dialog } = openFor(ASPIRIN);
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'Failed to load preferences: Medication not found',
    );
    const why = 'Failed to load preferences: Medication not found';
    expect(disabledState(within(dialog).getByRole('button', { name: 'Save Settings' }))).toEqual({
      disabled: true,
      reason: why,
      title: why,
    });
  });

  it('says "Failed to save preferences" with the reason and keeps the dialog open', async () => {
    mockFetch({
      [`GET ${MED_PATH}`]: () => ok(medicationJson()),
      [`PUT ${MED_PATH}`]: () => fail('Reminder lead must be between 0 and 1440 minutes'),
    });
    const { dialog, onClose } = openFor(ASPIRIN);
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Save Settings' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'Failed to save preferences: Reminder lead must be between 0 and 1440 minutes',
    );
    expect(onClose).not.toHaveBeenCalled();
  });

  it('asks for a delivery method before saving', async () => {
    const fetchMock = mockFetch({ [`GET ${MED_PATH}`]: () => ok(medicationJson()) });
    const { dialog } = openFor(ASPIRIN);
    await userEvent.click(await within(dialog).findByLabelText('Push notification'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('Choose at least one delivery method');
    expect(requestsTo(fetchMock, 'PUT', MED_PATH)).toEqual([]);
  });

  it('closes with Cancel and with a click on the backdrop, not with a click inside', async () => {
    mockFetch({ [`GET ${MED_PATH}`]: () => ok(medicationJson()) });
    const first = openFor(ASPIRIN);
    await userEvent.click(within(first.dialog).getByRole('button', { name: 'Cancel' }));
    expect(first.onClose).toHaveBeenCalledTimes(1);
    await userEvent.click(within(first.dialog).getByRole('heading'));
    expect(first.onClose).toHaveBeenCalledTimes(1);
    const backdrop = first.dialog.parentElement;
    if (!backdrop) throw new Error('the dialog sits on a backdrop');
    await userEvent.click(backdrop);
    expect(first.onClose).toHaveBeenCalledTimes(2);
  });
});

describe('the global preferences dialog', () => {
  it('loads every preference, saves them and closes 1.5 s later', async () => {
    const fetchMock = mockFetch({
      'GET /api/notifications/preferences': () => ok(globalJson({ email_available: false })),
      'PUT /api/notifications/preferences': (init) => ok(globalJson({ ...(sentJson(init) as object) })),
    });
    const { dialog, onClose } = openFor();
    expect(screen.getByRole('dialog', { name: 'Notification Settings' })).toBe(dialog);
    const lead = await within(dialog).findByLabelText<HTMLSelectElement>('Remind me');
    expect(lead.value).toBe('15');
    const toggle = (name: RegExp) => within(dialog).getByRole<HTMLInputElement>('switch', { name });
    expect(toggle(/^Push notifications/).checked).toBe(true);
    expect(toggle(/^E-mail notifications/).checked).toBe(false);
    expect(toggle(/^Sound/).checked).toBe(true);
    expect(toggle(/^Vibration/).checked).toBe(true);
    expect(within(dialog).getByTestId('email-unavailable')).toBeTruthy();
    const repeats = within(dialog).getByLabelText<HTMLSelectElement>('Repeat an unanswered reminder');
    expect([...repeats.options].map((o) => o.textContent)).toEqual([
      "Don't repeat",
      'Once',
      'Up to 2 times',
      'Up to 3 times',
      'Up to 5 times',
    ]);
    const interval = within(dialog).getByLabelText<HTMLSelectElement>('Time between repeats');
    expect(interval.value).toBe('10');
    expect([...interval.options].map((o) => o.textContent)).toEqual([
      'Every 5 minutes',
      'Every 10 minutes',
      'Every 15 minutes',
      'Every 30 minutes',
      'Every hour',
    ]);

    await userEvent.click(toggle(/^E-mail notifications/));
    await userEvent.click(toggle(/^Sound/));
    await userEvent.selectOptions(lead, '60');
    await userEvent.click(within(dialog).getByLabelText('E-mail'));
    await userEvent.selectOptions(interval, '30');
    await userEvent.selectOptions(repeats, '0');
    expect(interval.disabled).toBe(true);
    await userEvent.click(toggle(/^Hide medication names in notifications/));

    vi.useFakeTimers();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    await settle();
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/notifications/preferences')[0]?.[1])).toEqual({
      email_notifications_enabled: true,
      push_notifications_enabled: true,
      notification_sound_enabled: false,
      notification_vibration_enabled: true,
      default_reminder_minutes_before: 60,
      default_delivery_methods: ['push', 'email'],
      repeat_interval_minutes: 30,
      repeat_max: 0,
      hide_medication_names: true,
      email_fallback_enabled: true,
    });
    expect(within(dialog).getByRole('status').textContent).toBe('Preferences saved successfully!');
    await advance(1490);
    expect(onClose).not.toHaveBeenCalled();
    await advance(10);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('offers the e-mail fallback under push, on with e-mail and off without it', async () => {
    const fetchMock = mockFetch({
      'GET /api/notifications/preferences': () => ok(globalJson({ email_fallback_enabled: false })),
      'PUT /api/notifications/preferences': (init) => ok(globalJson({ ...(sentJson(init) as object) })),
    });
    const { dialog } = openFor();
    const lead = await within(dialog).findByLabelText<HTMLSelectElement>('Remind me');
    expect(lead.options[0]?.textContent).toBe('At the time of the dose');
    const switches = within(dialog).getAllByRole<HTMLInputElement>('switch');
    const fallback = within(dialog).getByRole<HTMLInputElement>('switch', {
      name: /^If no device takes a push, send it by e-mail/,
    });
    expect(switches.indexOf(fallback)).toBe(1);
    expect(fallback.checked).toBe(false);
    expect(fallback.disabled).toBe(true);
    expect(fallback.closest('label')?.textContent).toContain('with them off, no reminder is sent by e-mail');

    // Saved with e-mail off: the choice is not sent, so it stays as it was.
    vi.useFakeTimers();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    await settle();
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/notifications/preferences')[0]?.[1])).not.toHaveProperty(
      'email_fallback_enabled',
    );
    vi.useRealTimers();
  });

  it('turns the e-mail fallback on with e-mail, and off on its own', async () => {
    const fetchMock = mockFetch({
      'GET /api/notifications/preferences': () => ok(globalJson({ email_fallback_enabled: false })),
      'PUT /api/notifications/preferences': (init) => ok(globalJson({ ...(sentJson(init) as object) })),
    });
    const { dialog } = openFor();
    const toggle = (name: RegExp) => within(dialog).getByRole<HTMLInputElement>('switch', { name });
    await within(dialog).findByLabelText('Remind me');
    await userEvent.click(toggle(/^E-mail notifications/));
    const fallback = toggle(/^If no device takes a push/);
    expect([fallback.checked, fallback.disabled]).toEqual([true, false]);
    await userEvent.click(fallback);
    expect(fallback.checked).toBe(false);
    vi.useFakeTimers();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    await settle();
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/notifications/preferences')[0]?.[1])).toMatchObject({
      email_notifications_enabled: true,
      email_fallback_enabled: false,
    });
    vi.useRealTimers();
  });

  it('tests with the default delivery methods', async () => {
    const fetchMock = mockFetch({
      'GET /api/notifications/preferences': () => ok(globalJson({ default_delivery_methods: ['push', 'email'] })),
      'POST /api/notifications/test': () =>
        jsonResponse({ success: true, data: { results: [{ channel: 'push', ok: true, detail: 'Sent to 1 device' }] } }),
    });
    const { dialog } = openFor();
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Test Notification' }));
    expect(await within(dialog).findByText('Test notification sent!')).toBeTruthy();
    expect(within(dialog).queryByTestId('test-channel-problems')).toBeNull();
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/notifications/test')[0]?.[1])).toEqual({
      deliveryMethods: ['push', 'email'],
    });
  });

  it('offers the person’s channels among the default methods and keeps one chosen elsewhere', async () => {
    const fetchMock = mockFetch({
      'GET /api/notifications/preferences': () => ok(globalJson({ default_delivery_methods: ['push', 'channel:5'] })),
      'GET /api/channels': () => ok(CHANNELS),
      'PUT /api/notifications/preferences': (init) => ok(globalJson(sentJson(init) as Record<string, unknown>)),
    });
    const { dialog } = openFor();
    const methods = await within(dialog).findByRole('group', { name: 'Send reminders by' });
    expect(await within(methods).findByLabelText<HTMLInputElement>('Phone (ntfy)')).toHaveProperty('checked', true);
    expect(within(methods).getByLabelText<HTMLInputElement>('Push notification').checked).toBe(true);
    await userEvent.click(within(methods).getByLabelText('Push notification'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    expect(await within(dialog).findByText('Preferences saved successfully!')).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/notifications/preferences')[0]?.[1])).toMatchObject({
      default_delivery_methods: ['channel:5'],
    });
  });

  it('keeps a lead set elsewhere among the choices', async () => {
    mockFetch({ 'GET /api/notifications/preferences': () => ok(globalJson({ default_reminder_minutes_before: 45 })) });
    const { dialog } = openFor();
    const lead = await within(dialog).findByLabelText<HTMLSelectElement>('Remind me');
    expect(lead.value).toBe('45');
    expect(lead.selectedOptions[0]?.textContent).toBe('45 minutes before');
  });

  it('says "Failed to load preferences" when the server gives no reason', async () => {
    mockFetch({ 'GET /api/notifications/preferences': () => new Response(null, { status: 500 }) });
    const { dialog } = openFor();
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Failed to load preferences');
    expect(within(dialog).getByRole<HTMLButtonElement>('button', { name: 'Test Notification' }).disabled).toBe(true);
  });

  it('is translated', async () => {
    const { default: i18n } = await import('../../i18n');
    await i18n.changeLanguage('de');
    mockFetch({ 'GET /api/notifications/preferences': () => ok(globalJson()) });
    const { dialog } = openFor();
    expect(screen.getByRole('dialog', { name: 'Benachrichtigungseinstellungen' })).toBe(dialog);
    expect((await within(dialog).findByLabelText<HTMLSelectElement>('Erinnern')).selectedOptions[0]?.textContent).toBe(
      '15 Minuten vorher',
    );
    for (const name of ['Einstellungen speichern', 'Testbenachrichtigung', 'Abbrechen']) {
      expect(within(dialog).getByRole('button', { name })).toBeTruthy();
    }
  });
});

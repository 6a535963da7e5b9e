import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred, mockFetch, sentJson, sessionRoutes, type Route } from '../../test/fetchMock';
import { fail, ok, requestsTo } from '../../test/medications';
import { renderApp } from '../../test/renderApp';
import { settle, advance } from '../../test/fakeClock';

const USER = { id: 11, email: 'robin@example.com', emailVerified: true, created_at: '2026-11-21T12:00:00Z' };
const SETTINGS_PATH = '/api/notifications/settings';

function settingsJson(overrides: Record<string, unknown> = {}) {
  return {
    medication_reminders: true,
    reminder_time_before: 15,
    daily_reminder_time: '09:00',
    push_notifications: true,
    email_notifications: false,
    ...overrides,
  };
}

function openSection(routes: Record<string, Route>) {
  localStorage.setItem('token', 'stored-token');
  localStorage.setItem('user', JSON.stringify(USER));
  const fetchMock = mockFetch({
    'GET /api/version': () => ok({ version: '1.0.0' }),
    ...sessionRoutes(USER),
    'GET /api/calendar/feed': () => ok({ exists: false, created_at: null }),
    ...routes,
  });
  renderApp('/settings?section=notifications');
  return fetchMock;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Settings, Notifications', () => {
  it('loads the settings, saves the whole object and says so for 3 s', async () => {
    const fetchMock = openSection({
      [`GET ${SETTINGS_PATH}`]: () => ok(settingsJson()),
      [`PUT ${SETTINGS_PATH}`]: (init) => ok(settingsJson(sentJson(init) as Record<string, unknown>)),
    });
    expect(await screen.findByRole('heading', { level: 2, name: 'Notifications' })).toBeTruthy();
    const reminders = await screen.findByRole<HTMLInputElement>('switch', { name: /^Medication reminders/ });
    expect(reminders.checked).toBe(true);
    const lead = screen.getByLabelText<HTMLSelectElement>('Remind me');
    expect(lead.value).toBe('15');
    expect([...lead.options].map((o) => o.value)).toEqual(['0', '5', '15', '30', '60', '120']);
    expect(lead.options[0]?.textContent).toBe('At the time of the dose');
    const time = screen.getByLabelText<HTMLInputElement>('Daily reminder time');
    expect(time.value).toBe('09:00');
    // Delivery methods are chosen in one place, the Notifications page.
    expect(screen.queryByRole('switch', { name: /^Push notifications/ })).toBeNull();
    expect(screen.queryByRole('switch', { name: /^E-mail notifications/ })).toBeNull();

    await userEvent.click(reminders);
    await userEvent.selectOptions(lead, '30');
    fireEvent.input(time, { target: { value: '07:45' } });

    vi.useFakeTimers();
    fireEvent.click(screen.getByRole('button', { name: 'Save Notification Settings' }));
    await settle();
    expect(sentJson(requestsTo(fetchMock, 'PUT', SETTINGS_PATH)[0]?.[1])).toEqual({
      medication_reminders: false,
      reminder_time_before: 30,
      daily_reminder_time: '07:45',
      push_notifications: true,
      email_notifications: false,
    });
    const message = screen.getByText('Notification settings updated successfully');
    expect(message.getAttribute('role')).toBe('status');
    await advance(2990);
    expect(screen.queryByText('Notification settings updated successfully')).not.toBeNull();
    await advance(10);
    expect(screen.queryByText('Notification settings updated successfully')).toBeNull();
  });

  it('shows "Failed to update notification settings" with the reason for 5 s', async () => {
    openSection({
      [`GET ${SETTINGS_PATH}`]: () => ok(settingsJson()),
      [`PUT ${SETTINGS_PATH}`]: () => fail('Reminder lead must be between 0 and 1440 minutes'),
    });
    const save = await screen.findByRole('button', { name: 'Save Notification Settings' }, { timeout: 5000 });
    vi.useFakeTimers();
    fireEvent.click(save);
    await settle();
    const text = 'Failed to update notification settings: Reminder lead must be between 0 and 1440 minutes';
    expect(screen.getByRole('alert').textContent).toBe(text);
    await advance(4990);
    expect(screen.queryByText(text)).not.toBeNull();
    await advance(10);
    expect(screen.queryByText(text)).toBeNull();
  });

  it('asks for a time instead of sending an empty one', async () => {
    const fetchMock = openSection({ [`GET ${SETTINGS_PATH}`]: () => ok(settingsJson()) });
    const time = await screen.findByLabelText('Daily reminder time');
    fireEvent.input(time, { target: { value: '' } });
    await userEvent.click(screen.getByRole('button', { name: 'Save Notification Settings' }));
    expect(screen.getByRole('alert').textContent).toBe('Please enter a time');
    expect(requestsTo(fetchMock, 'PUT', SETTINGS_PATH)).toEqual([]);
  });

  it('says "Failed to load settings" for 5 s and can try again', async () => {
    const first = deferred<Response>();
    let answer: () => Response | Promise<Response> = () => first.promise;
    openSection({ [`GET ${SETTINGS_PATH}`]: () => answer() });
    await screen.findByRole('heading', { level: 2, name: 'Notifications' });
    expect(screen.getByRole('status').textContent).toBe('Loading...');

    vi.useFakeTimers();
    first.resolve(new Response(null, { status: 500 }));
    await settle();
    expect(screen.getByRole('alert').textContent).toBe('Failed to load settings');
    expect(screen.queryByRole('button', { name: 'Save Notification Settings' })).toBeNull();
    await advance(4990);
    expect(screen.queryByRole('alert')).not.toBeNull();
    await advance(10);
    expect(screen.queryByRole('alert')).toBeNull();
    vi.useRealTimers();

    answer = () => ok(settingsJson({ reminder_time_before: 120 }));
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect((await screen.findByLabelText<HTMLSelectElement>('Remind me')).value).toBe('120');
  });

  it('leads to the one place where delivery methods are chosen', async () => {
    openSection({ [`GET ${SETTINGS_PATH}`]: () => ok(settingsJson()) });
    const elsewhere = await screen.findByTestId('methods-elsewhere');
    expect(elsewhere.textContent).toContain('chosen in one place: the Notifications page');
    const link = within(elsewhere).getByRole('link', { name: 'Choose how reminders arrive' });
    expect(link.getAttribute('href')).toBe('/notifications?tab=settings');
  });

  it('makes a private calendar feed, shows its address once, and revokes it', async () => {
    const url = 'https://pills.example/api/calendar/secret-token.ics';
    const fetchMock = openSection({
      [`GET ${SETTINGS_PATH}`]: () => ok(settingsJson()),
      'POST /api/calendar/feed': () => ok({ url, created_at: '2026-11-23T10:00:00Z' }, 201),
      'DELETE /api/calendar/feed': () => ok(undefined),
    });
    const card = await screen.findByTestId('calendar-feed');
    expect(within(card).getByRole('heading', { name: 'Calendar feed' })).toBeTruthy();
    expect(await within(card).findByText('You have no calendar feed.')).toBeTruthy();
    expect(card.textContent).toContain('The address is private');

    await userEvent.click(within(card).getByRole('button', { name: 'Create calendar feed' }));
    expect((await within(card).findByLabelText<HTMLInputElement>('Feed address (shown only now)')).value).toBe(url);
    expect(within(card).getByRole('button', { name: 'Copy address' })).toBeTruthy();
    expect(requestsTo(fetchMock, 'POST', '/api/calendar/feed')).toHaveLength(1);

    await userEvent.click(within(card).getByRole('button', { name: 'Revoke feed' }));
    expect(await within(card).findByText('You have no calendar feed.')).toBeTruthy();
    expect(within(card).queryByLabelText('Feed address (shown only now)')).toBeNull();
    expect(requestsTo(fetchMock, 'DELETE', '/api/calendar/feed')).toHaveLength(1);
  });
});

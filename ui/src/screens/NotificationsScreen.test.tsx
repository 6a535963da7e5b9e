import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { jsonResponse, requestUrl } from '../test/fetchMock';
import { fail, medsServer, requestsTo, signInForMeds } from '../test/medications';
import { renderApp } from '../test/renderApp';

function notificationJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 11,
    title: 'Time for Aspirin',
    medication_id: 3,
    medication_name: 'Aspirin',
    scheduled_time: '2026-11-22T09:00:00Z',
    reminder_time: '2026-11-22T08:45:00Z',
    status: 'scheduled',
    message: null,
    ...overrides,
  };
}

function listResponse(items: Record<string, unknown>[], total = items.length) {
  return jsonResponse({ success: true, data: items, pagination: { total, limit: 50, offset: 0 } });
}

function server(routes: Parameters<typeof medsServer>[0]) {
  signInForMeds();
  return medsServer(routes);
}

describe('Notifications', () => {
  it('titles reminders in the chosen language, low-stock alerts apart from doses', async () => {
    localStorage.setItem('dosage_app_settings', JSON.stringify({ language: 'de' }));
    const { default: i18n } = await import('../i18n');
    await i18n.changeLanguage('de');
    server({
      'GET /api/notifications': () =>
        listResponse([
          notificationJson({ kind: 'dose' }),
          notificationJson({ id: 12, kind: 'low_stock', title: 'Running low on Aspirin' }),
          notificationJson({ id: 13, kind: 'refill', title: 'Order a refill of Aspirin' }),
          notificationJson({ id: 14, kind: 'batch_expiring', title: 'A batch of Aspirin expires soon' }),
        ]),
    });
    renderApp('/notifications');
    const rows = await screen.findAllByTestId('notification-row');
    expect(rows.map((row) => within(row).getByRole('heading').textContent)).toEqual([
      'Zeit für Aspirin',
      'Vorrat knapp: Aspirin',
      'Nachbestellen: Aspirin',
      'Eine Packung Aspirin läuft bald ab',
    ]);
  });

  it("shows a medication's custom message on its reminders", async () => {
    const prefs = (id: number, message: string | null) => () =>
      jsonResponse({
        success: true,
        data: { medication_id: id, delivery_methods: ['push'], reminder_minutes_before: 15, custom_message: message, uses_defaults: false },
      });
    const fetchMock = server({
      'GET /api/notifications': () =>
        listResponse([
          notificationJson({ kind: 'dose' }),
          notificationJson({ id: 12, kind: 'dose', scheduled_time: '2026-11-23T09:00:00Z' }),
          notificationJson({ id: 13, kind: 'dose', medication_id: 4, medication_name: 'Zinc', message: 'Its own words' }),
          notificationJson({ id: 14, kind: 'dose', medication_id: 5, medication_name: 'Iron' }),
        ]),
      'GET /api/notifications/medications/3/preferences': prefs(3, 'Take with food'),
      'GET /api/notifications/medications/5/preferences': prefs(5, null),
    });
    renderApp('/notifications');
    await waitFor(() => expect(screen.getAllByTestId('notification-message')).toHaveLength(3));
    const rows = screen.getAllByTestId('notification-row');
    expect(rows.map((row) => within(row).queryByTestId('notification-message')?.textContent ?? null)).toEqual([
      'Take with food',
      'Its own words',
      null,
      'Take with food',
    ]);
    // One look-up per medication, none for a reminder with its own message.
    expect(requestsTo(fetchMock, 'GET', '/api/notifications/medications/3/preferences')).toHaveLength(1);
    expect(requestsTo(fetchMock, 'GET', '/api/notifications/medications/4/preferences')).toHaveLength(0);
  });

  it('shows the count on the Scheduled tab and Cancel only on scheduled rows', async () => {
    const fetchMock = server({
      'GET /api/notifications': () =>
        listResponse(
          [
            notificationJson(),
            notificationJson({ id: 12, status: 'sent', scheduled_time: '2026-11-23T09:00:00Z' }),
            notificationJson({ id: 13, status: 'failed', message: 'Delivery failed', scheduled_time: '2026-11-24T09:00:00Z' }),
          ],
          12,
        ),
    });
    renderApp('/notifications');

    expect((await screen.findByRole('tab', { name: 'Scheduled (12)' })).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('tablist')).toBeTruthy();
    const rows = await screen.findAllByTestId('notification-row');
    expect(rows).toHaveLength(3);
    const row = (index: number): HTMLElement => {
      const found = rows[index];
      if (!found) throw new Error(`no row ${index}`);
      return found;
    };
    expect(within(row(0)).getByText('Time for Aspirin')).toBeTruthy();
    expect(within(row(0)).getByTestId('notification-status').textContent).toBe('Scheduled');
    expect(within(row(0)).getByTestId('notification-status').classList.contains('badge-info')).toBe(true);
    expect(within(row(0)).getByRole('button', { name: 'Cancel Time for Aspirin' })).toBeTruthy();
    expect(within(row(1)).getByTestId('notification-status').textContent).toBe('Sent');
    expect(within(row(1)).queryByRole('button')).toBeNull();
    expect(within(row(2)).getByTestId('notification-status').classList.contains('badge-danger')).toBe(true);
    expect(within(row(2)).getByText('Delivery failed')).toBeTruthy();
    expect(within(row(2)).queryByRole('button')).toBeNull();

    const query = fetchMock.mock.calls
      .map(([input]) => new URL(requestUrl(input), 'http://x'))
      .find((url) => url.pathname === '/api/notifications');
    expect(query?.searchParams.get('status')).toBe('scheduled');
    expect(query?.searchParams.get('limit')).toBe('50');
  });

  it('cancels a scheduled reminder and reloads', async () => {
    let cancelled = false;
    const fetchMock = server({
      'GET /api/notifications': () =>
        listResponse(cancelled ? [] : [notificationJson()]),
      'DELETE /api/notifications/11': () => {
        cancelled = true;
        return jsonResponse({ success: true, message: 'Notification cancelled' });
      },
    });
    renderApp('/notifications');
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel Time for Aspirin' }));
    expect((await screen.findByTestId('empty-state')).textContent).toContain('No scheduled notifications');
    expect(screen.getByRole('tab', { name: 'Scheduled (0)' })).toBeTruthy();
    expect(requestsTo(fetchMock, 'DELETE', '/api/notifications/11')).toHaveLength(1);
  });

  it('shows the empty state with a link to Medications', async () => {
    server({ 'GET /api/notifications': () => listResponse([]) });
    renderApp('/notifications');
    const empty = await screen.findByTestId('empty-state');
    expect(empty.textContent).toContain('No scheduled notifications');
    expect(within(empty).getByRole('link', { name: 'Go to Medications' }).getAttribute('href')).toBe('/medications');
    expect(screen.getByRole('tab', { name: 'Scheduled (0)' })).toBeTruthy();
  });

  it('says when the list cannot be loaded', async () => {
    server({ 'GET /api/notifications': () => jsonResponse({ success: false }, 500) });
    renderApp('/notifications');
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to load notifications');
  });

  it('says when a cancel fails, with the server message when there is one', async () => {
    let status = 500;
    server({
      'GET /api/notifications': () => listResponse([notificationJson()]),
      'DELETE /api/notifications/11': () =>
        status === 500 ? jsonResponse({ success: false }, 500) : fail('Only a scheduled notification can be cancelled', 409, 'notification_not_scheduled'),
    });
    renderApp('/notifications');
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel Time for Aspirin' }));
    expect(await screen.findByText('Failed to cancel notification')).toBeTruthy();
    status = 409;
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel Time for Aspirin' }));
    expect(await screen.findByText('Only a scheduled notification can be cancelled')).toBeTruthy();
  });

  it('marks answered reminders as done and says why a delivery failed', async () => {
    server({
      'GET /api/notifications': () =>
        listResponse([
          notificationJson({ status: 'sent', answered_at: '2026-11-22T09:05:00Z' }),
          notificationJson({ id: 12, status: 'failed', failure_reason: 'No device is subscribed' }),
          notificationJson({ id: 13 }),
        ]),
    });
    renderApp('/notifications');
    const rows = await screen.findAllByTestId('notification-row');
    const [answered, failed, plain] = rows;
    if (!answered || !failed || !plain) throw new Error('rows missing');
    expect(within(answered).getByTestId('notification-done').textContent).toBe('Done');
    expect(within(answered).queryByTestId('notification-failure')).toBeNull();
    expect(within(failed).getByTestId('notification-failure').textContent).toBe(
      'Delivery failed: No device is subscribed',
    );
    expect(within(failed).queryByTestId('notification-done')).toBeNull();
    expect(within(plain).queryByTestId('notification-done')).toBeNull();
    expect(within(plain).queryByTestId('notification-failure')).toBeNull();
  });

  it('switches between the three tabs', async () => {
    server({
      'GET /api/notifications': () => listResponse([]),
      'GET /api/notifications/history': () => jsonResponse({ success: true, data: [], pagination: { total: 0 } }),
    });
    renderApp('/notifications');
    await userEvent.click(await screen.findByRole('tab', { name: 'Settings' }));
    expect(screen.getByRole('tab', { name: 'Settings' }).getAttribute('aria-selected')).toBe('true');
    expect(within(screen.getByRole('tabpanel')).getByRole('heading', { name: 'Push Notifications' })).toBeTruthy();
    await userEvent.click(screen.getByRole('tab', { name: 'History' }));
    expect(screen.getByRole('tab', { name: 'History' }).getAttribute('aria-selected')).toBe('true');
    await waitFor(() => expect(screen.getByRole('tabpanel').textContent).toContain('No notifications sent yet'));
  });
});

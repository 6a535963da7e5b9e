import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryWarningCode } from '../../api/medicationTypes';
import i18n from '../../i18n';
import { mockFetch, sentJson } from '../../test/fetchMock';
import { ok, requestsTo } from '../../test/medications';
import { renderWithQuery } from '../../test/queryClient';
import { DeliveryWarning } from './DeliveryWarning';

function preferences(overrides: Record<string, unknown> = {}) {
  return ok({ default_delivery_methods: ['push'], email_available: true, ...overrides });
}

function show(code: DeliveryWarningCode | null, onSettingsClosed?: () => void) {
  localStorage.setItem('token', 'stored-token');
  return renderWithQuery(
    <MemoryRouter>
      <DeliveryWarning medication={{ id: 3, name: 'Aspirin', delivery_warning: code }} onSettingsClosed={onSettingsClosed} />
    </MemoryRouter>,
  );
}

afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('a medication whose reminders reach nobody', () => {
  it('says why in each case, with the fix', () => {
    mockFetch({ 'GET /api/notifications/preferences': () => preferences() });
    const said: Record<string, string> = {};
    for (const code of ['no_push_device', 'email_unavailable', 'email_unverified', 'no_method'] as const) {
      const { unmount } = show(code);
      const warning = screen.getByTestId('delivery-warning');
      said[code] = warning.querySelector('p')?.textContent ?? '';
      if (code === 'no_method') {
        expect(within(warning).getByRole('button', { name: 'Check its notification settings' })).toBeTruthy();
      } else {
        const link = within(warning).getByRole('link', { name: 'Notification settings' });
        expect(link.getAttribute('href')).toBe('/notifications?tab=settings');
      }
      unmount();
    }
    expect(said).toEqual({
      no_push_device:
        'No reminder reaches you for this medication: its reminders go by push, and no device is subscribed to push notifications.',
      email_unavailable:
        'No reminder reaches you for this medication: its reminders go by e-mail, and this server cannot send e-mail.',
      email_unverified:
        'No reminder reaches you for this medication: its reminders go by e-mail, and your e-mail address is not verified.',
      no_method: 'No reminder goes out for this medication: none of its delivery methods is switched on.',
    });
    show(null);
    expect(screen.queryByTestId('delivery-warning')).toBeNull();
  });

  it('offers e-mail in place of a missing device, and turns on e-mail with its fallback', async () => {
    let closed = 0;
    const fetchMock = mockFetch({
      'GET /api/notifications/preferences': () => preferences(),
      'PUT /api/notifications/preferences': (init) => preferences(sentJson(init) as Record<string, unknown>),
    });
    show('no_push_device', () => (closed += 1));
    await userEvent.click(await screen.findByRole('button', { name: 'Add e-mail' }));
    await waitFor(() => expect(closed).toBe(1));
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/notifications/preferences')[0]?.[1])).toEqual({
      email_notifications_enabled: true,
      email_fallback_enabled: true,
    });
  });

  it('offers no e-mail where this server cannot send it', async () => {
    mockFetch({ 'GET /api/notifications/preferences': () => preferences({ email_available: false }) });
    show('no_push_device');
    await screen.findByTestId('delivery-warning');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Add e-mail' })).toBeNull());
  });

  it('is said in every language', async () => {
    mockFetch({ 'GET /api/notifications/preferences': () => preferences() });
    const said: string[] = [];
    for (const lang of ['de', 'fr', 'es']) {
      await i18n.changeLanguage(lang);
      const { unmount } = show('no_push_device');
      said.push(screen.getByTestId('delivery-warning').querySelector('p')?.textContent ?? '');
      unmount();
    }
    expect(said).toEqual([
      'Für dieses Medikament erreicht Sie keine Erinnerung: Seine Erinnerungen kommen per Push, und kein Gerät ist für Push-Benachrichtigungen angemeldet.',
      'Aucun rappel ne vous parvient pour ce médicament : ses rappels partent par notification push, et aucun appareil n’y est abonné.',
      'No te llega ningún recordatorio de este medicamento: sus recordatorios van por push y ningún dispositivo está suscrito a las notificaciones push.',
    ]);
  });
});

import type { CDPSession, Page } from '@playwright/test';
import { expect, test } from './fixtures';

interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  data: unknown;
  actions: { action: string; title: string }[];
}

/** The id Chromium gives the page's service worker registration (for DevTools push). */
async function registrationId(cdp: CDPSession, scopeURL: string): Promise<string> {
  const found = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const match = registrations.find((r) => r.scopeURL === scopeURL && !r.isDeleted);
      if (match) resolve(match.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  return found;
}

async function shownNotifications(page: Page): Promise<ShownNotification[]> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const notifications = await registration.getNotifications();
    return notifications.map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data as unknown,
      actions: [...((n as Notification & { actions?: { action: string; title: string }[] }).actions ?? [])].map(
        ({ action, title }) => ({ action, title }),
      ),
    }));
  });
}

async function closeAll(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    for (const notification of await registration.getNotifications()) notification.close();
  });
}

test.describe('service worker push', () => {
  test('shows reminders with a Take action, and any other push as a Pillbox notification', async ({
    page,
    context,
    baseURL,
  }) => {
    const origin = baseURL ?? '';
    await context.grantPermissions(['notifications'], { origin });
    await page.goto('/login');
    // `ready` resolves while the worker may still be activating; a push sent then can be
    // dropped, so wait until it is fully activated.
    await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      const worker = registration.active;
      if (!worker || worker.state === 'activated') return;
      await new Promise<void>((resolve) => {
        worker.addEventListener('statechange', () => {
          if (worker.state === 'activated') resolve();
        });
      });
    });
    const cdp = await context.newCDPSession(page);
    const id = await registrationId(cdp, `${origin}/`);

    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin,
      registrationId: id,
      data: JSON.stringify({
        title: 'Time for Ibuprofen',
        body: '200 mg at 09:00',
        url: '/today',
        takeUrl: `${origin}/notifications/take/abc`,
        takeLabel: 'Einnehmen',
        tag: 'reminder-1',
      }),
    });
    await expect.poll(() => shownNotifications(page)).toEqual([
      {
        title: 'Time for Ibuprofen',
        body: '200 mg at 09:00',
        tag: 'reminder-1',
        data: { url: '/today', takeUrl: `${origin}/notifications/take/abc` },
        actions: [{ action: 'take', title: 'Einnehmen' }],
      },
    ]);
    await closeAll(page);

    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin,
      registrationId: id,
      data: 'plain text from the server',
    });
    await expect.poll(() => shownNotifications(page)).toEqual([
      { title: 'Pillbox', body: 'plain text from the server', tag: '', data: { url: '/today' }, actions: [] },
    ]);
    await closeAll(page);
  });
});

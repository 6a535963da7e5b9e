import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { registrationId, shownNotifications, workerActivated } from './swHelpers';

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
    await workerActivated(page);
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

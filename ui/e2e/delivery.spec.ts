import { createECDH } from 'node:crypto';
import type { APIRequestContext } from '@playwright/test';
import { expect, signIn, test, type TestUser } from './fixtures';
import { MAIL_SERVER_URL } from './mail';
import { createMedication, freshUserAt } from './medsHelpers';
import { mailMedication, verifiedMailUser } from './notifyHelpers';

const auth = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });

/** A dose every two hours, so Today lists the medication whatever the time. */
const ALL_DAY = Array.from({ length: 12 }, (_, i) => `${String(i * 2).padStart(2, '0')}:00`);

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/**
 * Another device of the person subscribes to push, through the API: the browser here cannot
 * reach a real push service (STACK: pushManager.subscribe needs the vendor's service).
 */
async function subscribeAnotherDevice(request: APIRequestContext, user: TestUser, origin = ''): Promise<void> {
  // A browser's key: an uncompressed point on P-256, as the server checks.
  const point = new Uint8Array(createECDH('prime256v1').generateKeys());
  const response = await request.post(`${origin}/api/notifications/push/register`, {
    headers: auth(user),
    data: {
      subscription: {
        endpoint: `https://fcm.googleapis.com/fcm/send/e2e-${Date.now().toString(36)}`,
        keys: { p256dh: base64url(point), auth: base64url(new Uint8Array(16).fill(3)) },
      },
      userAgent: 'another phone',
    },
  });
  expect(response.status(), await response.text()).toBe(201);
}

test.describe('whether reminders can reach the person', () => {
  test('a medication no device takes push for is flagged on Today, Medications and its dialog', async ({
    page,
    request,
  }) => {
    const user = await freshUserAt(page, request, '/today');
    await createMedication(request, user, {
      name: 'Ramipril',
      unit: 'tablets',
      frequency: 'daily',
      schedule: { times: ALL_DAY },
    });
    const reason =
      'No reminder reaches you for this medication: its reminders go by push, and no device is subscribed to push notifications.';

    await page.goto('/today');
    const onToday = page.getByTestId('today-medication').filter({ hasText: 'Ramipril' }).getByTestId('delivery-warning');
    await expect(onToday).toContainText(reason);
    await expect(onToday.getByRole('button', { name: 'Turn on push on this device' })).toBeVisible();
    // This server sends no e-mail: e-mail is not offered as the fix.
    await expect(onToday.getByRole('button', { name: 'Add e-mail' })).toHaveCount(0);

    await page.goto('/medications');
    const card = page.getByTestId('medication-card').filter({ hasText: 'Ramipril' });
    await expect(card.getByTestId('delivery-warning')).toContainText(reason);
    await card.getByRole('button', { name: /Notification settings for Ramipril/ }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('delivery-warning')).toContainText(reason);
    await page.keyboard.press('Escape');

    // The settings link leads to the one place delivery methods are chosen.
    await card.getByTestId('delivery-warning').getByRole('link', { name: 'Notification settings' }).click();
    await expect(page).toHaveURL(/\/notifications\?tab=settings$/);
    await expect(page.getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true');

    // A device subscribes: every screen stops warning.
    await subscribeAnotherDevice(request, user);
    await page.goto('/today');
    await expect(page.getByTestId('today-medication').filter({ hasText: 'Ramipril' })).toBeVisible();
    await expect(page.getByTestId('delivery-warning')).toHaveCount(0);
    await page.goto('/medications');
    await expect(page.getByTestId('medication-card').filter({ hasText: 'Ramipril' })).toBeVisible();
    await expect(page.getByTestId('delivery-warning')).toHaveCount(0);
  });
});

test.describe('reminders by e-mail when no device takes a push', () => {
  test.use({ baseURL: MAIL_SERVER_URL });

  test('"Add e-mail" fixes a device-less medication; the fallback and "at dose time" are choices', async ({
    page,
    request,
  }) => {
    const user = await verifiedMailUser(request, 'fallback');
    await mailMedication(request, user, { name: 'Sertraline', unit: 'tablets', frequency: 'daily', schedule: { times: ALL_DAY } });
    await signIn(page, user, '/today');

    const warning = page.getByTestId('today-medication').filter({ hasText: 'Sertraline' }).getByTestId('delivery-warning');
    await expect(warning).toHaveAttribute('data-code', 'no_push_device');
    await warning.getByRole('button', { name: 'Add e-mail' }).click();
    await expect(page.getByTestId('delivery-warning')).toHaveCount(0);

    // The fallback is on, under push, in the one place methods are chosen.
    await page.goto('/notifications?tab=settings');
    await page.getByTestId('general-card').getByRole('button', { name: 'Configure' }).click();
    const dialog = page.getByRole('dialog');
    const fallback = dialog.getByRole('switch', { name: /If no device takes a push, send it by e-mail/ });
    await expect(fallback).toBeChecked();
    await expect(fallback).toBeEnabled();
    const email = dialog.getByRole('switch', { name: /^E-mail notifications/ });
    await email.uncheck();
    await expect(fallback).not.toBeChecked();
    await expect(fallback).toBeDisabled();
    await email.check();
    await expect(fallback).toBeChecked();
    await fallback.uncheck();
    await dialog.getByLabel('Remind me').selectOption({ label: 'At the time of the dose' });
    await dialog.getByRole('button', { name: 'Save Settings' }).click();
    await expect(dialog.getByRole('status')).toHaveText('Preferences saved successfully!');

    const saved = await request.get(`${MAIL_SERVER_URL}/api/notifications/preferences`, { headers: auth(user) });
    const prefs = ((await saved.json()) as { data: Record<string, unknown> }).data;
    expect([prefs.email_fallback_enabled, prefs.default_reminder_minutes_before]).toEqual([false, 0]);

    // Without the fallback, no device means no reminder again: Today says so.
    await page.goto('/today');
    await expect(
      page.getByTestId('today-medication').filter({ hasText: 'Sertraline' }).getByTestId('delivery-warning'),
    ).toHaveAttribute('data-code', 'no_push_device');
  });

  test('the test notification reports each step in the person’s language', async ({ page, request }) => {
    const user = await verifiedMailUser(request, 'steps');
    const put = await request.put(`${MAIL_SERVER_URL}/api/notifications/preferences`, {
      headers: auth(user),
      data: { email_notifications_enabled: true },
    });
    expect(put.ok(), await put.text()).toBe(true);
    await signIn(page, user, '/notifications');
    await page.getByRole('tab', { name: 'Settings' }).click();
    const testCard = page.getByTestId('test-card');
    await testCard.getByRole('button', { name: 'Send Test Notification' }).click();
    await expect(testCard.getByTestId('test-outcome')).toHaveText('Test notification sent!');
    const steps = testCard.getByTestId('test-step');
    await expect(steps).toHaveText([
      'Push not delivered: no device is subscribed to push notifications',
      `Fallback to e-mail delivered: sent to ${user.email}`,
    ]);

    await page.getByRole('tab', { name: 'History' }).click();
    const rows = page.getByTestId('delivery-row');
    await expect(rows).toHaveCount(2);
    await expect(rows.first().getByRole('heading')).toHaveText('Pillbox test notification');
  });
});

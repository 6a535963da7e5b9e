import { expect, signIn, test } from './fixtures';
import { MAIL_SERVER_URL, waitForMail } from './mail';
import { createMedication, freshUserAt } from './medsHelpers';
import { emailReminders, verifiedMailUser } from './notifyHelpers';

// One account for the whole journey: the server allows 10 registrations per client and hour,
// and the other specs already use 9 of them.
test.describe('notifications', () => {
  test('empty state, then the planned reminders of a new medication; cancel one', async ({ page, request }) => {
    const user = await freshUserAt(page, request, '/notifications');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notifications');
    await expect(page.getByRole('tab', { name: 'Scheduled (0)' })).toHaveAttribute('aria-selected', 'true');
    const empty = page.getByTestId('empty-state');
    await expect(empty).toContainText('No scheduled notifications');
    await empty.getByRole('link', { name: 'Go to Medications' }).click();
    await expect(page).toHaveURL(/\/medications$/);

    await createMedication(request, user, { name: 'Lisinopril', unit: 'mg', frequency: 'daily', default_quantity: 10 });

    await page.goto('/notifications');
    const tab = page.getByRole('tab', { name: /^Scheduled \(\d+\)$/ });
    await expect(tab).toHaveAttribute('aria-selected', 'true');
    const rows = page.getByTestId('notification-row');
    await expect(rows.first()).toBeVisible();
    const count = Number(/\((\d+)\)/.exec((await tab.textContent()) ?? '')?.[1]);
    expect(count).toBeGreaterThan(0);
    await expect(rows).toHaveCount(Math.min(count, 50));

    const first = rows.first();
    await expect(first).toContainText('Time for Lisinopril');
    await expect(first.getByTestId('notification-status')).toHaveText('Scheduled');
    await expect(first.getByTestId('notification-scheduled-time')).not.toBeEmpty();
    await expect(first.getByTestId('notification-reminder-time')).not.toBeEmpty();

    const soonest = (await first.getByTestId('notification-scheduled-time').textContent()) ?? '';
    await first.getByRole('button', { name: 'Cancel Time for Lisinopril' }).click();
    await expect(page.getByRole('tab', { name: `Scheduled (${count - 1})` })).toBeVisible();
    await expect(rows).toHaveCount(Math.min(count - 1, 50));
    await expect(page.getByTestId('notification-scheduled-time').filter({ hasText: soonest })).toHaveCount(0);

    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect(page.getByTestId('push-card')).toBeVisible();
    await page.getByRole('tab', { name: 'History' }).click();
    await expect(page.getByTestId('history-empty')).toContainText('No notifications sent yet');
  });
});

test.describe('notifications with e-mail delivery', () => {
  // The server that sends e-mail (playwright.config.ts), so a test notification can go out.
  test.use({ baseURL: MAIL_SERVER_URL });

  test('push permission badge, a test e-mail, and its delivery in the history', async ({ page, context, request }) => {
    const user = await verifiedMailUser(request, 'notify');
    await emailReminders(request, user);
    await signIn(page, user, '/notifications');

    await page.getByRole('tab', { name: 'Settings' }).click();
    const push = page.getByTestId('push-card');
    await expect(push.getByRole('heading', { name: 'Push Notifications' })).toBeVisible();
    await expect(push.getByTestId('push-permission')).toHaveText('Not Set');
    await context.grantPermissions(['notifications'], { origin: MAIL_SERVER_URL });
    await page.reload();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect(push.getByTestId('push-permission')).toHaveText('Enabled');
    await expect(push.getByRole('checkbox', { name: 'Send push notifications to this device' })).not.toBeChecked();

    await page.getByTestId('general-card').getByRole('button', { name: 'Configure' }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(page.getByTestId('per-medication-card').getByRole('link', { name: 'Go to Medications' })).toBeVisible();

    const testCard = page.getByTestId('test-card');
    await testCard.getByRole('button', { name: 'Send Test Notification' }).click();
    await expect(testCard.getByTestId('test-outcome')).toHaveText('Test notification sent!');
    await expect(testCard.getByTestId('test-results')).toContainText('E-mail delivered');
    // Message 1 was the verification link.
    await waitForMail(user.email, 2);

    await page.getByRole('tab', { name: 'History' }).click();
    const rows = page.getByTestId('delivery-row');
    await expect(rows).toHaveCount(1);
    await expect(rows.first().getByTestId('delivery-channel')).toHaveText('E-mail');
    await expect(rows.first().getByTestId('delivery-result')).toHaveText('Sent');
    await expect(rows.first().getByTestId('delivery-kind')).toHaveText('Test');
    await expect(rows.first().getByTestId('delivery-time')).not.toBeEmpty();
    await expect(page.getByTestId('history-summary')).toHaveText('Showing 1 of 1');

    // The language chosen in Settings reaches the server: the next e-mail is in German.
    await page.goto('/settings?section=appearance');
    const saved = page.waitForResponse(
      (response) => response.url().endsWith('/api/settings') && response.request().method() === 'PUT',
    );
    await page.getByLabel('Language').selectOption('de');
    expect((await saved).ok()).toBe(true);
    await page.goto('/notifications');
    await page.getByRole('tab', { name: 'Einstellungen' }).click();
    await testCard.getByRole('button', { name: 'Testbenachrichtigung senden' }).click();
    await expect(testCard.getByTestId('test-outcome')).toHaveText('Testbenachrichtigung gesendet!');
    const german = await waitForMail(user.email, 3);
    expect(german.subject).toBe('Pillbox-Testbenachrichtigung');
    expect(german.text).toContain('Pillbox öffnen');
  });
});

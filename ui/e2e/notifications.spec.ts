import { expect, test } from './fixtures';
import { createMedication, freshUserAt } from './medsHelpers';

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
    await expect(page.getByRole('tabpanel')).toContainText('Push and e-mail delivery settings arrive');
    await page.getByRole('tab', { name: 'History' }).click();
    await expect(page.getByRole('tabpanel')).toContainText('Delivery history arrives');
  });
});

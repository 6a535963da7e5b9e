import { expect, test } from './fixtures';
import { freshUserAt } from './medsHelpers';

test.describe('settings for reminders people trust', () => {
  test('a private calendar feed: made, its address shown once and working, then revoked', async ({ page, request }) => {
    const user = await freshUserAt(page, request, '/settings?section=notifications');
    const card = page.getByTestId('calendar-feed');
    await expect(card.getByRole('heading', { name: 'Calendar feed' })).toBeVisible();
    await expect(card).toContainText('You have no calendar feed.');
    await expect(card).toContainText('The address is private');

    await card.getByRole('button', { name: 'Create calendar feed' }).click();
    const address = card.getByLabel('Feed address (shown only now)');
    await expect(address).toHaveValue(/\/api\/calendar\/[A-Za-z0-9_-]+\.ics$/);
    const url = await address.inputValue();
    const feed = await request.get(url);
    expect(feed.status()).toBe(200);
    expect(feed.headers()['content-type']).toContain('text/calendar');
    expect(await feed.text()).toContain('BEGIN:VCALENDAR');

    // Opened again later, the page knows a feed exists but no longer shows its address.
    await page.reload();
    await expect(card.getByTestId('calendar-feed-since')).toContainText('Your calendar feed was made on');
    await expect(card.getByLabel('Feed address (shown only now)')).toHaveCount(0);

    await card.getByRole('button', { name: 'Revoke feed' }).click();
    await expect(card).toContainText('You have no calendar feed.');
    expect((await request.get(url)).status()).toBe(404);
    const status = await request.get('/api/calendar/feed', { headers: { Authorization: `Bearer ${user.token}` } });
    expect(((await status.json()) as { data: { exists: boolean } }).data.exists).toBe(false);
  });

  test('hide medication names is a switch in the notification preferences', async ({ page, request }) => {
    const user = await freshUserAt(page, request, '/notifications');
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByTestId('general-card').getByRole('button', { name: 'Configure' }).click();
    const dialog = page.getByRole('dialog', { name: 'Notification Settings' });
    const hide = dialog.getByRole('switch', { name: /Hide medication names in notifications/ });
    await expect(hide).not.toBeChecked();
    await hide.check();
    await dialog.getByRole('button', { name: 'Save Settings' }).click();
    await expect(dialog).toBeHidden();
    const prefs = await request.get('/api/notifications/preferences', {
      headers: { Authorization: `Bearer ${user.token}` },
    });
    expect(((await prefs.json()) as { data: { hide_medication_names: boolean } }).data.hide_medication_names).toBe(true);
  });
});

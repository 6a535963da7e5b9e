// Defects found when Pillbox was tried as a new user would (issue 11 §5), each seen in the
// browser against the real server.
import { expect, registerUser, signIn, test } from './fixtures';
import { test as atFixedTime } from './fixedTime';
import { createMedication, freshUserAt, oneTabletLeft } from './medsHelpers';

test.use({ timezoneId: 'UTC' });

function auth(token: string) {
  return { Authorization: `Bearer ${token}` };
}

test.describe('a new user', () => {
  test('is asked how many mg one tablet holds, and cannot save a stock no dose could draw from', async ({ page, request }) => {
    await freshUserAt(page, request, '/medications');
    await page.getByRole('button', { name: 'Add Medication' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Medication' });
    await dialog.getByLabel('Name').fill('Lisinopril');
    await dialog.getByLabel('Unit', { exact: true }).selectOption('mg');
    await dialog.getByRole('switch', { name: /Track stock/ }).check();
    await dialog.getByLabel('Counted (tablets, capsules)').check();
    await dialog.getByLabel('Items per container').fill('30');
    const strength = dialog.getByLabel('How many mg does 1 tablet hold?');
    await expect(strength).toHaveAttribute('aria-required', 'true');

    await dialog.getByRole('button', { name: 'Add Medication' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(
      'Stock is counted in tablets but doses are in mg: enter how many mg one item holds (item strength).',
    );
    await strength.fill('10');
    await dialog.getByRole('button', { name: 'Add Medication' }).click();
    await expect(dialog).toBeHidden();
    const card = page.getByTestId('medication-card').filter({ hasText: 'Lisinopril' });
    await expect(card.getByTestId('stock-quantity')).toHaveText('30 tablets');
  });

  test('a dose larger than the stock is recorded, and the stock says 0 and Out of stock', async ({ page, request }) => {
    const user = await registerUser(request);
    await createMedication(request, user, oneTabletLeft('Ibuprofen'));
    await signIn(page, user, '/today');
    const card = page.getByTestId('today-medication').filter({ hasText: 'Ibuprofen' });
    await expect(card.getByTestId('stock-quantity')).toHaveText('1 tablet');
    await card.getByRole('button', { name: 'Taken' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Log as Taken' }).click();
    await expect(page.getByTestId('dose-warning')).toContainText('The stock ran out, so it is now 0.');
    await expect(card.getByTestId('stock-quantity')).toHaveText('0 tablets');
    await expect(card.getByTestId('stock-status')).toHaveText('Out of stock');
  });

  test('sees that a medication reminded by e-mail only gets no reminder while e-mail is off', async ({ page, request }) => {
    const user = await registerUser(request);
    const { id } = await createMedication(request, user, { name: 'Zinc', unit: 'mg', frequency: 'daily', default_quantity: 25 });
    const saved = await request.put(`/api/notifications/medications/${id}/preferences`, {
      headers: auth(user.token),
      data: { delivery_methods: ['email'], reminder_minutes_before: 15, custom_message: 'With breakfast' },
    });
    expect(saved.ok(), await saved.text()).toBe(true);

    await signIn(page, user, '/today');
    const card = page.getByTestId('today-medication').filter({ hasText: 'Zinc' });
    await expect(card.getByTestId('delivery-warning')).toContainText('No reminder goes out for this medication');
    await card.getByRole('button', { name: 'Check its notification settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Notification Settings for Zinc' });
    await expect(dialog.getByTestId('effective-email')).toContainText('E-mail: off');
    await expect(dialog.getByTestId('effective-methods').getByRole('alert')).toHaveText(
      'No reminder will go out for this medication: none of its methods is on.',
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // The Scheduled list says the medication's own message.
    await page.goto('/notifications');
    await expect(page.getByTestId('notification-message').first()).toHaveText('With breakfast');
  });

  test('a new device takes the language, formats and theme chosen on another one', async ({ page, request }) => {
    const user = await registerUser(request);
    const saved = await request.put('/api/settings', {
      headers: auth(user.token),
      data: { language: 'de', dateFormat: 'dd/MM/yyyy', timeFormat: '24h', theme: 'dark' },
    });
    expect(saved.ok()).toBe(true);
    await signIn(page, user, '/today');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Heute');
    await expect(page.locator('html')).toHaveClass(/dark/);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('dosage_app_settings') ?? '{}') as unknown);
    expect(stored).toMatchObject({ language: 'de', dateFormat: 'dd/MM/yyyy', timeFormat: '24h', theme: 'dark' });
  });

  test('opening the app offline keeps them signed in and shows what it had', async ({ page, context, request }) => {
    const user = await registerUser(request);
    await createMedication(request, user, { name: 'Vitamin D', unit: 'tablets', frequency: 'daily', default_quantity: 1 });
    await signIn(page, user, '/today');
    await expect(page.getByTestId('today-medication')).toHaveCount(1);
    // The service worker takes control, then keeps the answers of this visit.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await expect(page.getByTestId('today-medication')).toHaveCount(1);
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

    await context.setOffline(true);
    await page.reload();
    await expect(page).toHaveURL(/\/today$/);
    await expect(page.getByTestId('offline-notice')).toBeVisible();
    await expect(page.getByTestId('today-medication')).toContainText('Vitamin D');
    expect(await page.evaluate(() => localStorage.getItem('token'))).not.toBeNull();
    await context.setOffline(false);
  });
});

// Read at a fixed instant, so that "due" and "upcoming" do not depend on the hour the run reaches it.
atFixedTime.describe('a new user, at 22:30', () => {
  atFixedTime("sees today's doses with their state and logs one with a tap", async ({ page, request }) => {
    // 22:30 (e2e/fixedTime.ts): 22:00 is due (its grace runs to 23:00), 23:00 upcoming.
    const user = await registerUser(request);
    await createMedication(request, user, {
      name: 'Metformin',
      unit: 'tablets',
      frequency: 'daily',
      default_quantity: 1,
      schedule: { times: ['22:00', '23:00'] },
    });
    await signIn(page, user, '/today');
    const schedule = page.getByRole('region', { name: 'Scheduled today' });
    const rows = schedule.getByTestId('today-dose');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0).getByTestId('today-dose-status')).toHaveText('Due');
    await expect(rows.nth(1).getByTestId('today-dose-status')).toHaveText('Upcoming');

    await rows.nth(0).getByRole('button', { name: 'Mark Metformin at 10:00 PM as taken' }).click();
    await expect(rows.nth(0).getByTestId('today-dose-status')).toHaveText('Taken');
    await expect(rows.nth(0).getByRole('button')).toHaveCount(0);
    await expect(page.getByText('Metformin logged as taken.')).toBeVisible();

    // The server agrees after a reload.
    await page.reload();
    await expect(schedule.getByTestId('today-dose').nth(0).getByTestId('today-dose-status')).toHaveText('Taken');
    const history = await request.get('/api/medications/history', { headers: auth(user.token) });
    const entries = ((await history.json()) as { data: { status: string }[] }).data;
    expect(entries.map((entry) => entry.status)).toEqual(['taken']);
  });
});

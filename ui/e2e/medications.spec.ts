import { expect, test } from './fixtures';
import { createMedication, freshUserAt, localDate, logDose } from './medsHelpers';

test.describe('medications, today and history', () => {
  test('a new account sees the empty states', async ({ page, request }) => {
    await freshUserAt(page, request, '/medications');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Medications');
    await expect(page.getByTestId('empty-state')).toContainText('No medications');

    await page.goto('/today');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Today');
    await expect(page.getByTestId('empty-state')).toContainText('No medications scheduled');
    await page.getByRole('link', { name: 'Add Medications' }).click();
    await expect(page).toHaveURL(/\/medications$/);

    await page.goto('/history');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('History');
    await expect(page.getByTestId('empty-state')).toContainText('No doses logged yet');
    await expect(page.getByRole('button', { name: 'Add Historical Entry' })).toBeDisabled();
  });

  test('stock follows a dose from Today and its status switch in History', async ({ page, request }) => {
    await freshUserAt(page, request, '/medications');

    // Add a medication with 3 blister packs of 10 tablets.
    await page.getByRole('button', { name: 'Add Medication' }).click();
    const add = page.getByRole('dialog', { name: 'Add Medication' });
    await add.getByLabel('Name').fill('Ibuprofen');
    await expect(add.getByLabel('Unit', { exact: true })).toHaveValue('tablets');
    await add.getByLabel('Default dose').fill('1');
    await add.getByRole('switch', { name: /Track stock/ }).check();
    await add.getByLabel('Counted (tablets, capsules)').check();
    await add.getByLabel('Container', { exact: true }).selectOption('blister_pack');
    await add.getByLabel('Number of containers').fill('3');
    await add.getByLabel('Items per container').fill('10');
    await expect(add.getByTestId('inventory-form-total')).toHaveText('Total: 30 tablets');
    await add.getByRole('button', { name: 'Add Medication' }).click();
    await expect(add).toBeHidden();

    const card = page.getByTestId('medication-card').filter({ hasText: 'Ibuprofen' });
    await expect(card.getByRole('heading', { name: 'Ibuprofen' })).toBeVisible();
    await expect(card.getByTestId('stock-quantity')).toHaveText('30 tablets');
    await expect(card.getByTestId('stock-status')).toHaveText('In stock');
    await expect(card).toContainText('Daily at');

    // Log it as taken on Today, at its dose of today (the one Taken it has while that is open).
    await page.getByTestId('sidebar').getByRole('link', { name: 'Today' }).click();
    const today = page.getByTestId('today-medication').filter({ hasText: 'Ibuprofen' });
    const slot = page.getByRole('region', { name: 'Scheduled today' }).getByTestId('today-dose').filter({ hasText: 'Ibuprofen' });
    await expect(today.getByRole('button', { name: 'Taken' })).toHaveCount(0);
    await slot.getByRole('button', { name: /^Mark Ibuprofen at .* as taken$/ }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Ibuprofen logged as taken.' })).toBeVisible();
    await expect(today.getByTestId('recent-doses').getByTestId('dose-status')).toHaveText(['Taken']);
    await expect(today.getByTestId('stock-quantity')).toHaveText('29 tablets');
    // Its dose of today is taken: the card's Taken is back, for an extra dose (asked first).
    await expect(today.getByRole('button', { name: 'Taken' })).toBeVisible();

    await page.getByTestId('sidebar').getByRole('link', { name: 'Medications' }).click();
    await expect(card.getByTestId('stock-quantity')).toHaveText('29 tablets');

    // The dose is in History; switching it to skipped gives the tablet back.
    await page.getByTestId('sidebar').getByRole('link', { name: 'History' }).click();
    const entries = page.getByTestId('history-entry');
    await expect(entries).toHaveCount(1);
    await expect(entries.first()).toContainText('Ibuprofen');
    await expect(entries.first()).toContainText('1 tablet');
    await expect(entries.first().getByTestId('dose-status')).toHaveText('Taken');
    await expect(page.getByTestId('adherence')).toContainText('100%');
    await entries.first().getByRole('button', { name: /^Mark skipped/ }).click();
    await expect(entries.first().getByTestId('dose-status')).toHaveText('Skipped');
    await expect(page.getByTestId('adherence')).toContainText('0%');

    await page.getByTestId('sidebar').getByRole('link', { name: 'Medications' }).click();
    await expect(card.getByTestId('stock-quantity')).toHaveText('30 tablets');

    // A historical entry through the dialog; a future date is refused.
    await page.getByTestId('sidebar').getByRole('link', { name: 'History' }).click();
    await expect(entries).toHaveCount(1);
    await page.getByRole('button', { name: 'Add Historical Entry' }).click();
    const historical = page.getByRole('dialog', { name: 'Add Historical Entry' });
    // The only medication is chosen already.
    await expect(historical.getByLabel('Medication')).toHaveValue(/\d+/);
    await historical.getByLabel('Medication').selectOption('');
    await historical.getByRole('button', { name: 'Add Entry' }).click();
    await expect(historical.getByRole('alert')).toHaveText('Please select a medication');
    await historical.getByLabel('Medication').selectOption({ label: 'Ibuprofen' });
    await historical.getByRole('button', { name: 'Add Entry' }).click();
    await expect(historical.getByRole('alert')).toHaveText('Please select both date and time');

    await historical.getByLabel('Date').fill(await localDate(page, 1));
    await historical.getByLabel('Time').fill('08:00');
    await historical.getByRole('button', { name: 'Add Entry' }).click();
    await expect(historical.getByRole('alert')).toHaveText('Cannot add entries for future dates');

    await historical.getByLabel('Date').fill(await localDate(page, -1));
    await expect(historical.getByLabel('Affect inventory')).toBeChecked();
    await historical.getByRole('button', { name: 'Add Entry' }).click();
    await expect(historical).toBeHidden();
    await expect(entries).toHaveCount(2);
    await expect(entries.nth(1).getByTestId('dose-status')).toHaveText('Taken');

    await page.getByTestId('sidebar').getByRole('link', { name: 'Medications' }).click();
    await expect(card.getByTestId('stock-quantity')).toHaveText('29 tablets');
  });
});

test.describe('quality', () => {
  test('the three screens load without CSP violations or console errors', async ({ page, request }) => {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    const user = await freshUserAt(page, request, '/medications');
    const metformin = await createMedication(request, user, {
      name: 'Metformin',
      unit: 'mg',
      frequency: 'twice_daily',
      color: 'purple',
      default_quantity: 500,
      inventory: {
        enabled: true,
        inventory_type: 'discrete',
        container_type: 'pill_bottle',
        container_quantity: 1,
        item_quantity: 60,
        item_strength: 500,
        item_unit: 'tablets',
        reminder_threshold: 10,
      },
    });
    await logDose(request, user, metformin.id, { status: 'taken', quantity: 1, dosage_unit: 'tablets' });
    for (const path of ['/medications', '/today', '/history']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await page.waitForLoadState('networkidle');
    }
    await expect(page.getByTestId('adherence-chart')).toBeVisible();
    expect(problems).toEqual([]);
  });

  test('works from the keyboard: dialogs take focus, Escape closes them, focus returns', async ({
    page,
    request,
  }) => {
    await freshUserAt(page, request, '/medications');
    const add = page.getByRole('button', { name: 'Add Medication' });
    await add.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Add Medication' });
    await expect(dialog.getByLabel('Name')).toBeFocused();
    await page.keyboard.type('Cetirizine');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(add).toBeFocused();

    await page.keyboard.press('Enter');
    await page.keyboard.type('Cetirizine');
    await page.keyboard.press('Enter');
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('medication-card')).toHaveCount(1);
    await expect(page.getByTestId('medication-card')).toContainText('Daily at');

    // The stock dialog's form comes once the stock is loaded: its switch then takes the focus.
    const inventory = page.getByTestId('medication-card').getByRole('button', { name: 'Inventory' });
    await inventory.focus();
    await page.keyboard.press('Enter');
    const stock = page.getByRole('dialog', { name: 'Inventory: Cetirizine' });
    await expect(stock.getByLabel('Track stock')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(stock).toBeHidden();
    await expect(inventory).toBeFocused();
  });
});

test.describe('time zone', () => {
  test.use({ timezoneId: 'Europe/Berlin' });

  test("asks before the browser's zone replaces the stored one", async ({ page, request }) => {
    const user = await freshUserAt(page, request, '/today');
    const zone = async () => {
      const response = await request.get('/api/settings', { headers: { Authorization: `Bearer ${user.token}` } });
      return ((await response.json()) as { data: { timezone: string } }).data.timezone;
    };
    const prompt = page.getByRole('region', { name: 'Time zone' });
    await expect(prompt).toContainText('this device is set to Europe/Berlin');
    expect(await zone()).toBe('UTC');
    await prompt.getByRole('button', { name: 'Use Europe/Berlin' }).click();
    await expect(prompt).toBeHidden();
    expect(await zone()).toBe('Europe/Berlin');
    await page.goto('/settings?section=appearance');
    await expect(page.getByRole('combobox', { name: 'Time zone' })).toHaveValue('Europe/Berlin');
  });
});

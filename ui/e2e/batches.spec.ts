import { expect, test } from './fixtures';
import { createMedication, freshUserAt, localDate, logDose } from './medsHelpers';

test.describe('stock batches', () => {
  test('batches turn stock on, a dose takes from the one that expires first, and the card says it expires soon', async ({
    page,
    request,
  }) => {
    const user = await freshUserAt(page, request, '/medications');
    const { id } = await createMedication(request, user, {
      name: 'Amoxicillin',
      unit: 'tablets',
      frequency: 'as_needed',
      default_quantity: 1,
    });
    await page.reload();
    const card = page.getByTestId('medication-card').filter({ hasText: 'Amoxicillin' });
    await card.getByRole('button', { name: 'Inventory' }).click();
    const dialog = page.getByRole('dialog', { name: 'Inventory: Amoxicillin' });
    const add = dialog.getByRole('form', { name: 'New batch' });

    // A batch without its expiry date is not sent.
    await add.getByLabel('Quantity (tablets)').fill('20');
    await add.getByRole('button', { name: 'Add batch' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Enter the expiry date');

    await add.getByLabel('Expiry date').fill(await localDate(page, 200));
    await add.getByLabel('Lot number (optional)').fill('LATE-2');
    await add.getByRole('button', { name: 'Add batch' }).click();
    const rows = dialog.getByTestId('batch');
    await expect(rows).toHaveCount(1);
    await expect(dialog.getByTestId('inventory-summary').getByTestId('stock-quantity')).toHaveText('20 tablets');

    await add.getByLabel('Quantity (tablets)').fill('3');
    await add.getByLabel('Expiry date').fill(await localDate(page, 10));
    await add.getByLabel('Lot number (optional)').fill('EARLY-1');
    await add.getByRole('button', { name: 'Add batch' }).click();
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText('Lot EARLY-1');
    await expect(rows.first()).toContainText('3 tablets left of 3');
    await expect(rows.first()).toContainText(/Expires in \d+ days/);
    await expect(dialog.getByTestId('inventory-summary').getByTestId('stock-quantity')).toHaveText('23 tablets');
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await expect(dialog).toBeHidden();

    await expect(card.getByTestId('stock-quantity')).toHaveText('23 tablets');
    await expect(card.getByTestId('batch-expiring')).toContainText('Lot EARLY-1 expires on');

    // Two tablets come out of the batch that expires first.
    await logDose(request, user, id, { quantity: 2, dosage_unit: 'tablets' });
    await page.reload();
    await expect(card.getByTestId('stock-quantity')).toHaveText('21 tablets');
    await card.getByRole('button', { name: 'Inventory' }).click();
    await expect(rows.first()).toContainText('1 tablet left of 3');
    await expect(rows.nth(1)).toContainText('20 tablets left of 20');
    await expect(dialog.getByTestId('ledger')).toContainText('Dose taken');

    // Deleting a batch (asked once more) takes what it held out of the stock.
    await dialog.getByRole('button', { name: 'Delete batch EARLY-1' }).click();
    await dialog.getByRole('button', { name: 'Delete this batch' }).click();
    await expect(rows).toHaveCount(1);
    await expect(dialog.getByTestId('inventory-summary').getByTestId('stock-quantity')).toHaveText('20 tablets');
  });
});

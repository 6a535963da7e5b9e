import type { APIRequestContext } from '@playwright/test';
import { registerUser, signIn, type TestUser } from './fixtures';
import { expect, test } from './fixedTime';
import { createMedication, logDose } from './medsHelpers';

// The server's and the browser's clocks start at 2035-12-31 22:30 UTC (e2e/fixedTime.ts);
// the date and time inputs read in UTC.
test.use({ timezoneId: 'UTC' });

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

/** 30 tablets of 500 mg, counted in the stock. */
const ibuprofen = {
  name: 'Ibuprofen',
  unit: 'tablets',
  frequency: 'as_needed',
  default_quantity: 1,
  inventory: {
    enabled: true,
    inventory_type: 'discrete',
    container_type: 'blister_pack',
    container_quantity: 3,
    item_quantity: 10,
    item_unit: 'tablets',
  },
};

async function stockOf(request: APIRequestContext, user: TestUser, id: number): Promise<number> {
  const response = await request.get(`/api/medications/${id}/inventory`, { headers: auth(user.token) });
  expect(response.ok()).toBe(true);
  return ((await response.json()) as { data: { current_quantity: number } }).data.current_quantity;
}

test.describe('correcting a history entry', () => {
  test('the time, amount and note change, the stock follows and the ledger says why', async ({ page, request }) => {
    const user = await registerUser(request);
    const { id } = await createMedication(request, user, ibuprofen);
    await logDose(request, user, id, { status: 'taken', quantity: 1, dosage_unit: 'tablets' });
    expect(await stockOf(request, user, id)).toBe(29);
    await signIn(page, user, '/history');

    const entry = page.getByTestId('history-entry').filter({ hasText: 'Ibuprofen' });
    await expect(entry).toContainText('1 tablet');
    await entry.getByRole('button', { name: /^Correct the entry for Ibuprofen/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Correct this entry' });
    await expect(dialog.getByLabel('Quantity')).toHaveValue('1');
    await expect(dialog.getByLabel('Unit', { exact: true })).toHaveValue('tablets');

    // A time in the future (tomorrow, the new year's first day) is refused in words, and
    // nothing is sent.
    await dialog.getByLabel('Date').fill('2036-01-01');
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Cannot add entries for future dates');

    // Three hours ago, three tablets, with a note.
    await dialog.getByLabel('Date').fill('2035-12-31');
    await dialog.getByLabel('Time').fill('19:30');
    await dialog.getByLabel('Quantity').fill('3');
    await expect(dialog.getByTestId('dose-hint')).toHaveText('Takes 3 tablets from the stock');
    await dialog.getByLabel('Note').fill('after lunch');
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Entry corrected.' })).toBeVisible();
    await expect(entry).toContainText('3 tablets');
    await expect(entry.getByTestId('history-note')).toHaveText('after lunch');
    const shown = await entry.locator('time').getAttribute('datetime');
    expect(new Date(shown ?? '').toISOString()).toBe('2035-12-31T19:30:00.000Z');

    // The stock gave two more tablets, and the ledger calls it a correction.
    expect(await stockOf(request, user, id)).toBe(27);
    const ledger = await request.get(`/api/medications/${id}/inventory/ledger`, { headers: auth(user.token) });
    const rows = ((await ledger.json()) as { data: { kind: string; change: number; reason: string | null }[] }).data;
    expect(rows[0]).toMatchObject({
      kind: 'correction',
      change: -2,
      reason: 'Dose corrected from 1 tablet to 3 tablets',
    });

    // After a reload the correction is still there.
    await page.reload();
    await expect(entry).toContainText('3 tablets');
    await expect(entry.getByTestId('history-note')).toHaveText('after lunch');
  });

  test('the correction dialog speaks German', async ({ page, request }) => {
    const user = await registerUser(request);
    const saved = await request.put('/api/settings', { headers: auth(user.token), data: { language: 'de' } });
    expect(saved.ok()).toBe(true);
    const { id } = await createMedication(request, user, ibuprofen);
    await logDose(request, user, id, { status: 'taken', quantity: 1, dosage_unit: 'tablets' });
    await signIn(page, user, '/history');

    const entry = page.getByTestId('history-entry').filter({ hasText: 'Ibuprofen' });
    await entry.getByRole('button', { name: /^Eintrag für Ibuprofen am .* korrigieren$/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Eintrag korrigieren' });
    await dialog.getByLabel('Notiz').fill('nach dem Essen');
    await dialog.getByRole('button', { name: 'Änderungen speichern' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Eintrag korrigiert.' })).toBeVisible();
    await expect(entry.getByTestId('history-note')).toHaveText('nach dem Essen');
    expect(await stockOf(request, user, id)).toBe(29);
  });
});

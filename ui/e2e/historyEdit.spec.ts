import type { APIRequestContext, Page } from '@playwright/test';
import { expect, registerUser, signIn, test, type TestUser } from './fixtures';
import { createMedication, logDose } from './medsHelpers';

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

/** The browser's local date and time `hours` from now, as the date and time inputs hold them. */
async function localInputs(page: Page, hours: number): Promise<{ date: string; time: string }> {
  return page.evaluate((offset) => {
    const at = new Date(Date.now() + offset * 3_600_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    return {
      date: `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`,
      time: `${pad(at.getHours())}:${pad(at.getMinutes())}`,
    };
  }, hours);
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

    // A time in the future is refused in words, and nothing is sent.
    const tomorrow = await localInputs(page, 26);
    await dialog.getByLabel('Date').fill(tomorrow.date);
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Cannot add entries for future dates');

    // Three hours ago, three tablets, with a note.
    const earlier = await localInputs(page, -3);
    await dialog.getByLabel('Date').fill(earlier.date);
    await dialog.getByLabel('Time').fill(earlier.time);
    await dialog.getByLabel('Quantity').fill('3');
    await expect(dialog.getByTestId('dose-hint')).toHaveText('Takes 3 tablets from the stock');
    await dialog.getByLabel('Note').fill('after lunch');
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Entry corrected.' })).toBeVisible();
    await expect(entry).toContainText('3 tablets');
    await expect(entry.getByTestId('history-note')).toHaveText('after lunch');
    const shown = await entry.locator('time').getAttribute('datetime');
    const local = await page.evaluate((instant) => {
      const at = new Date(instant ?? '');
      return `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
    }, shown);
    expect(local).toBe(earlier.time);

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

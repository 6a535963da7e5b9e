import { readFile } from 'node:fs/promises';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, registerUser, signIn, test, type TestUser } from './fixtures';
import { createMedication, logDose } from './medsHelpers';

/** A medication counted in tablets, with stock, taken as needed (so no dose is "missed" by the clock). */
const IBUPROFEN = {
  name: 'Ibuprofen',
  unit: 'tablets',
  frequency: 'as_needed',
  color: 'orange',
  default_quantity: 1,
  inventory: {
    enabled: true,
    inventory_type: 'discrete',
    container_type: 'blister_pack',
    container_quantity: 2,
    item_quantity: 10,
    item_unit: 'tablets',
    reminder_threshold: 5,
  },
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** An account with Ibuprofen and some doses: taken, skipped, and one marked missed. */
async function accountWithDoses(request: APIRequestContext): Promise<TestUser> {
  const user = await registerUser(request);
  const { id } = await createMedication(request, user, IBUPROFEN);
  const dose = { quantity: 1, dosage_unit: 'tablets' };
  await logDose(request, user, id, { ...dose, status: 'taken', taken: new Date(Date.now() - 2 * DAY_MS).toISOString() });
  await logDose(request, user, id, { ...dose, status: 'taken', taken: new Date(Date.now() - DAY_MS).toISOString() });
  await logDose(request, user, id, { ...dose, status: 'skipped', taken: new Date(Date.now() - 3 * DAY_MS).toISOString() });
  await logDose(request, user, id, { ...dose, status: 'missed', taken: new Date(Date.now() - 4 * DAY_MS).toISOString() });
  return user;
}

async function apiGet(request: APIRequestContext, user: TestUser, path: string) {
  const response = await request.get(path, { headers: { Authorization: `Bearer ${user.token}` } });
  expect(response.status(), await response.text()).toBe(200);
  return response;
}

async function openDataManagement(page: Page, user: TestUser): Promise<void> {
  await signIn(page, user, '/settings?section=data');
  await expect(page.getByRole('heading', { name: 'Data Management', level: 2 })).toBeVisible();
}

interface ExportFile {
  medications: { name: string; inventory: { current_quantity: number } | null }[];
  history: { medication_name: string; status: string }[];
}

test.describe('Settings → Data Management', () => {
  test('Export Data downloads the account’s medications and history as JSON', async ({ page, request }) => {
    const user = await accountWithDoses(request);
    await openDataManagement(page, user);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export Data' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^pillbox-export-\d{4}-\d{2}-\d{2}\.json$/);
    await expect(page.getByRole('status').filter({ hasText: 'Data exported successfully' })).toBeVisible();

    const file = JSON.parse(await readFile(await download.path(), 'utf8')) as ExportFile & { version: string };
    // 1.1.0: the file carries the people too (here only the account holder).
    expect(file.version).toBe('1.2.0');
    expect((file as { people?: unknown[] }).people).toHaveLength(1);
    expect(file.medications.map((m) => m.name)).toEqual(['Ibuprofen']);
    expect(file.medications[0]?.inventory?.current_quantity).toBe(18);
    expect(file.history.map((h) => `${h.medication_name} ${h.status}`).sort()).toEqual([
      'Ibuprofen missed',
      'Ibuprofen skipped',
      'Ibuprofen taken',
      'Ibuprofen taken',
    ]);
  });

  test('Export history as CSV downloads one row per dose', async ({ page, request }) => {
    const user = await accountWithDoses(request);
    await openDataManagement(page, user);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export history as CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^pillbox-history-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = (await readFile(await download.path(), 'utf8')).trim().split(/\r?\n/);
    expect(lines[0]).toBe('date,time,medication,quantity,unit,status,note,taken_at,person,logged_by');
    expect(lines).toHaveLength(5);
    expect(lines.filter((line) => line.includes(',Ibuprofen,1,tablets,taken,'))).toHaveLength(2);
  });

  test('an export imports into a fresh account after the dry run’s counts, once', async ({ page, request }) => {
    const source = await accountWithDoses(request);
    const exported = await (await apiGet(request, source, '/api/export')).body();
    const file = { name: 'pillbox-export.json', mimeType: 'application/json', buffer: exported };

    const fresh = await registerUser(request);
    await openDataManagement(page, fresh);
    await page.getByLabel('File to import').setInputFiles(file);

    const dialog = page.getByRole('dialog', { name: 'Import this file?' });
    const counts = dialog.getByTestId('import-counts');
    await expect(counts.getByRole('row', { name: /^Medications/ })).toHaveText(/Medications\s*1\s*0/);
    await expect(counts.getByRole('row', { name: /^History entries/ })).toHaveText(/History entries\s*4\s*0/);
    // The dry run changed nothing.
    const before = (await (await apiGet(request, fresh, '/api/medications')).json()) as { data: unknown[] };
    expect(before.data).toEqual([]);

    await dialog.getByRole('button', { name: 'Import' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Import complete.' })).toBeVisible();
    await expect(page.getByTestId('import-counts').getByRole('row', { name: /^History entries/ })).toHaveText(
      /History entries\s*4\s*0/,
    );

    await page.getByTestId('sidebar').getByRole('link', { name: 'Medications' }).click();
    const card = page.getByTestId('medication-card').filter({ hasText: 'Ibuprofen' });
    await expect(card.getByRole('heading', { name: 'Ibuprofen' })).toBeVisible();
    await expect(card.getByTestId('stock-quantity')).toHaveText('18 tablets');

    // The same file again adds nothing.
    await page.goto('/settings?section=data');
    await page.getByLabel('File to import').setInputFiles(file);
    await expect(dialog.getByText('Nothing to import: everything in this file is already here.')).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Import' })).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
  });

  test('a history CSV imports its doses', async ({ page, request }) => {
    const source = await accountWithDoses(request);
    const csv = await (await apiGet(request, source, '/api/export?format=csv')).body();

    const fresh = await registerUser(request);
    await openDataManagement(page, fresh);
    await page
      .getByLabel('File to import')
      .setInputFiles({ name: 'pillbox-history.csv', mimeType: 'text/csv', buffer: csv });
    const dialog = page.getByRole('dialog', { name: 'Import this file?' });
    await expect(dialog.getByRole('row', { name: /^History entries/ })).toHaveText(/History entries\s*4\s*0/);
    await dialog.getByRole('button', { name: 'Import' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Import complete.' })).toBeVisible();

    await page.getByTestId('sidebar').getByRole('link', { name: 'History' }).click();
    await expect(page.getByTestId('history-entry')).toHaveCount(4);
    await expect(page.getByTestId('history-entry').first()).toContainText('Ibuprofen');
  });

  test('a file that is not an export is refused with the server’s reason', async ({ page, request }) => {
    const user = await registerUser(request);
    await openDataManagement(page, user);
    await page.getByLabel('File to import').setInputFiles({
      name: 'notes.json',
      mimeType: 'application/json',
      buffer: Buffer.from('these are my notes, not JSON'),
    });
    await expect(page.getByRole('alert')).toContainText('This file cannot be imported:');
    await expect(page.getByRole('dialog')).toHaveCount(0);
  });

  test('choosing a retention period shows how many entries go; Cancel keeps Forever', async ({ page, request }) => {
    const user = await registerUser(request);
    const { id } = await createMedication(request, user, IBUPROFEN);
    const dose = { quantity: 1, dosage_unit: 'tablets', status: 'taken' };
    await logDose(request, user, id, { ...dose, taken: new Date(Date.now() - 100 * DAY_MS).toISOString() });
    await logDose(request, user, id, { ...dose, taken: new Date(Date.now() - 120 * DAY_MS).toISOString() });
    await logDose(request, user, id, { ...dose, taken: new Date(Date.now() - 10 * DAY_MS).toISOString() });
    await openDataManagement(page, user);

    const select = page.getByLabel('Keep dose history for');
    await expect(select).toHaveValue('0');
    await expect(page.getByTestId('retention-notice')).toContainText('Deleted data cannot be recovered.');
    await select.selectOption('90');
    const dialog = page.getByRole('dialog', { name: 'Keep only 90 days of history?' });
    await expect(dialog.getByTestId('retention-count')).toContainText('This deletes 2 history entries now');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(select).toHaveValue('0');
    const settings = (await (await apiGet(request, user, '/api/settings')).json()) as { data: { dataRetention: number } };
    expect(settings.data.dataRetention).toBe(0);

    await select.selectOption('365');
    const yearDialog = page.getByRole('dialog', { name: 'Keep only 1 year of history?' });
    await expect(yearDialog.getByTestId('retention-count')).toHaveText(
      'No history entry is that old yet, so nothing is deleted now.',
    );
    await yearDialog.getByRole('button', { name: 'Keep only 1 year' }).click();
    await expect(yearDialog).toBeHidden();
    await expect(select).toHaveValue('365');
    await page.reload();
    await expect(page.getByLabel('Keep dose history for')).toHaveValue('365');
  });

  test('the doctor report shows the medication, its stock, its use and missed doses, and prints bare', async ({
    page,
    request,
  }) => {
    const user = await accountWithDoses(request);
    await openDataManagement(page, user);
    await page.getByRole('link', { name: 'Open the doctor report' }).click();
    await expect(page).toHaveURL(/\/report$/);
    await expect(page.getByRole('heading', { name: 'Medication report', level: 1 })).toBeVisible();
    await expect(page.getByTestId('report-facts')).toContainText(user.email);

    const row = page.getByTestId('report-medications').getByRole('row', { name: /^Ibuprofen/ });
    // Taken as needed, not kept to a schedule: its use, not an adherence rate.
    await expect(row.getByRole('cell')).toHaveText([
      /^As needed\s*From \d\d\/\d\d\/\d{4}, no end date$/,
      '1 tablet',
      /18 tablets\s*In stock/,
      'As needed: not counted in adherence2 doses in 30 days · 0.07 a day',
    ]);
    await expect(page.getByTestId('report-missed').getByRole('row')).toHaveText([
      /Scheduled for/,
      /Ibuprofen\s*Marked as missed/,
    ]);

    await page.getByLabel('Period').selectOption('90');
    await expect(page).toHaveURL(/\/report\?days=90$/);
    await expect(row.getByRole('cell').nth(3)).toHaveText(/2 doses in 90 days/);

    await page.emulateMedia({ media: 'print' });
    await expect(page.getByRole('button', { name: 'Print' })).toBeHidden();
    await expect(page.getByTestId('sidebar')).toBeHidden();
    await expect(row).toBeVisible();
  });
});

test.describe('Settings → Medications', () => {
  test('keeps the default reminder time and the auto-backup choice', async ({ page, request }) => {
    const user = await registerUser(request);
    await signIn(page, user, '/settings?section=medications');
    const time = page.getByLabel('Default reminder time');
    await expect(time).toHaveValue('09:00');
    await time.fill('07:45');
    await page.getByRole('button', { name: 'Save reminder time' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'App settings updated successfully' })).toBeVisible();

    const toggle = page.getByRole('switch', { name: /Automatically backup your data daily/ });
    await expect(toggle).toBeChecked();
    await expect(page.getByRole('heading', { name: 'Daily backups' })).toBeVisible();
    // The switch shows what the server saved, so it turns once the answer is in.
    await toggle.click();
    await expect(toggle).not.toBeChecked();
    await expect(page.getByRole('heading', { name: 'Daily backups' })).toBeHidden();

    await page.reload();
    await expect(page.getByLabel('Default reminder time')).toHaveValue('07:45');
    await expect(page.getByRole('switch', { name: /Automatically backup your data daily/ })).not.toBeChecked();
    const settings = (await (await apiGet(request, user, '/api/settings')).json()) as {
      data: { defaultReminderTime: string; autoBackup: boolean };
    };
    expect(settings.data).toMatchObject({ defaultReminderTime: '07:45', autoBackup: false });
  });
});

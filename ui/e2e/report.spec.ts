import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { registerUser, signIn, type TestUser } from './fixtures';
import { expect, test } from './fixedTime';
import { createMedication, logDose } from './medsHelpers';

// Today is 2035-12-31, it is 22:30 (e2e/fixedTime.ts), and the server and the browser agree
// on the day: both in UTC. The plans below run on into the new year.
test.use({ timezoneId: 'UTC' });

async function saveSettings(request: APIRequestContext, user: TestUser, settings: Record<string, unknown>) {
  const response = await request.put('/api/settings', {
    data: settings,
    headers: { Authorization: `Bearer ${user.token}` },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** One medication of each schedule kind, with doses: the as-needed one twice over a limit. */
async function everyKind(request: APIRequestContext): Promise<TestUser> {
  const user = await registerUser(request);
  await saveSettings(request, user, { timezone: 'UTC' });
  // Ten days ago.
  const started = '2035-12-21';
  const kinds: [string, string, Record<string, unknown>][] = [
    ['Aspirin', 'daily', { times: ['08:00'], start_date: started }],
    ['Metformin', 'twice_daily', { times: ['08:00', '20:00'], start_date: started }],
    ['Vitamin D', 'weekly', { times: ['20:00'], weekdays: [1, 4], start_date: started }],
    ['B12', 'monthly', { times: ['09:00'], start_date: '2026-01-15' }],
    ['Amoxicillin', 'daily', { times: ['06:00'], interval_hours: 8, start_date: started, end_date: '2036-01-05' }],
    ['Iron', 'daily', { times: ['08:00'], every_days: 3, start_date: started }],
    ['Estradiol', 'daily', { times: ['21:00'], cycle_on_days: 21, cycle_off_days: 7, start_date: started }],
    [
      'Prednisone',
      'daily',
      {
        times: ['08:00'],
        // Three days ago.
        start_date: '2035-12-28',
        steps: [
          { days: 5, quantity: 40 },
          { days: 5, quantity: 30 },
          { days: 1, quantity: 10 },
        ],
      },
    ],
    ['Ibuprofen', 'as_needed', { max_per_day: 2, min_gap_minutes: 240, start_date: started }],
  ];
  const ids: Record<string, number> = {};
  for (const [name, frequency, schedule] of kinds) {
    ids[name] = (await createMedication(request, user, { name, unit: 'mg', frequency, default_quantity: 40, schedule })).id;
  }
  await logDose(request, user, ids.Aspirin ?? 0, { taken: '2035-12-29T08:00:00.000Z' });
  await logDose(request, user, ids.Aspirin ?? 0, { taken: '2035-12-30T08:00:00.000Z', status: 'missed' });
  const ibuprofen = ids.Ibuprofen ?? 0;
  await logDose(request, user, ibuprofen, { taken: '2035-12-28T08:00:00.000Z' });
  await logDose(request, user, ibuprofen, { taken: '2035-12-28T10:00:00.000Z', confirm: true });
  await logDose(request, user, ibuprofen, { taken: '2035-12-28T15:00:00.000Z', confirm: true });
  await logDose(request, user, ibuprofen, { taken: '2035-12-29T16:00:00.000Z' });
  return user;
}

/** The browser's app settings, as Settings keeps them. */
async function useSettings(page: Page, settings: Record<string, string>): Promise<void> {
  await page.evaluate((stored) => localStorage.setItem('dosage_app_settings', JSON.stringify(stored)), settings);
}

function medicationRow(page: Page, name: string): Locator {
  return page
    .getByTestId('report-medications')
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name, exact: true }) });
}

/** What the report says of each schedule, line by line, in English. */
function englishLines(): Record<string, string[]> {
  const since = 'From 2035-12-21, no end date';
  return {
    Aspirin: ['Daily at 08:00', since],
    Metformin: ['Twice daily at 08:00 and 20:00', since],
    'Vitamin D': ['Weekly on Monday and Thursday at 20:00', since],
    B12: ['Monthly on day 15 at 09:00', 'From 2026-01-15, no end date'],
    Amoxicillin: ['Every 8 hours from 06:00', 'From 2035-12-21 to 2036-01-05'],
    Iron: ['Every 3 days at 08:00', since],
    Estradiol: ['Daily at 21:00', '21 days on, 7 off', since],
    Prednisone: [
      'Daily at 08:00',
      '2035-12-28 to 2036-01-01: 40 mg',
      '2036-01-02 to 2036-01-06: 30 mg',
      '2036-01-07: 10 mg',
      'From 2035-12-28 to 2036-01-07',
    ],
    Ibuprofen: ['As needed', 'At most 2 doses in 24 hours', 'At least 4 h apart', since],
  };
}

async function expectEnglishReport(page: Page): Promise<void> {
  for (const [name, lines] of Object.entries(englishLines())) {
    await expect(medicationRow(page, name).getByRole('listitem')).toHaveText(lines);
  }
  await expect(medicationRow(page, 'Prednisone').getByRole('cell').nth(1)).toHaveText('Per stage');
  await expect(medicationRow(page, 'Aspirin').getByRole('cell').nth(3)).toHaveText('1');
  await expect(medicationRow(page, 'Aspirin').getByRole('cell').nth(6)).toHaveText('50%');
  await expect(medicationRow(page, 'Ibuprofen').getByRole('cell').nth(3)).toHaveText(
    'As needed: not counted in adherence4 doses in 30 days · 0.13 a day2 taken anyway over a limit',
  );
  // The totals leave the as-needed doses out: Aspirin's one taken and one missed.
  await expect(page.getByTestId('report-total-rate')).toHaveText('50%');
  await expect(page.getByTestId('report-over-limit').getByRole('row')).toHaveText([
    /Taken at\s*Medication\s*Limit/,
    /Ibuprofen\s*Taken anyway: less than 4 h after the dose before$/,
    /Ibuprofen\s*Taken anyway: more than 2 in 24 hours$/,
  ]);
}

test.describe('the doctor report', () => {
  test('states every regimen as Pillbox schedules it, on screen and on paper, in English and French', async ({
    page,
    request,
  }) => {
    const user = await everyKind(request);
    await saveSettings(request, user, { language: 'en', dateFormat: 'yyyy-MM-dd', timeFormat: '24h' });
    await signIn(page, user, '/login');
    await useSettings(page, { language: 'en', dateFormat: 'yyyy-MM-dd', timeFormat: '24h' });
    await page.goto('/report');
    await expect(page.getByRole('heading', { name: 'Medication report', level: 1 })).toBeVisible();
    await expectEnglishReport(page);

    await page.emulateMedia({ media: 'print' });
    await expect(page.getByRole('button', { name: 'Print' })).toBeHidden();
    await expectEnglishReport(page);
    for (const name of Object.keys(englishLines())) {
      await expect(medicationRow(page, name).getByRole('listitem').first()).toBeVisible();
    }
    await expect(page.getByTestId('report-over-limit')).toBeVisible();

    await page.emulateMedia({ media: 'screen' });
    await saveSettings(request, user, { language: 'fr' });
    await useSettings(page, { language: 'fr', dateFormat: 'yyyy-MM-dd', timeFormat: '24h' });
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Rapport de traitement');
    const since = 'À partir du 2035-12-21, sans date de fin';
    await expect(medicationRow(page, 'Amoxicillin').getByRole('listitem')).toHaveText([
      'Toutes les 8 heures à partir de 06:00',
      'Du 2035-12-21 au 2036-01-05',
    ]);
    await expect(medicationRow(page, 'Prednisone').getByRole('listitem')).toHaveText([
      'Tous les jours à 08:00',
      'Du 2035-12-28 au 2036-01-01 : 40 mg',
      'Du 2036-01-02 au 2036-01-06 : 30 mg',
      '2036-01-07 : 10 mg',
      'Du 2035-12-28 au 2036-01-07',
    ]);
    await expect(medicationRow(page, 'Estradiol').getByRole('listitem')).toHaveText([
      'Tous les jours à 21:00',
      '21 jours de prise, 7 de pause',
      since,
    ]);
    await expect(medicationRow(page, 'Iron').getByRole('listitem')).toHaveText(['Tous les 3 jours à 08:00', since]);
    await expect(medicationRow(page, 'Ibuprofen').getByRole('listitem')).toHaveText([
      'Si besoin',
      'Au plus 2 prises en 24 heures',
      'Au moins 4 h entre deux prises',
      since,
    ]);
    await page.emulateMedia({ media: 'print' });
    await expect(medicationRow(page, 'Ibuprofen').getByRole('cell').nth(3)).toHaveText(
      'Si besoin : non compté dans l’observance4 prises en 30 jours · 0,13 par jour2 prises malgré une limite',
    );
    await expect(page.getByTestId('report-over-limit').getByRole('row').nth(1)).toContainText(
      'Prise quand même : moins de 4 h après la précédente',
    );
  });
});

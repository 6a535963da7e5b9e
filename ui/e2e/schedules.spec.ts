import type { APIRequestContext } from '@playwright/test';
import type { TestUser } from './fixtures';
import { expect, test } from './fixedTime';
import { createMedication, freshUserAt, logDose } from './medsHelpers';

// Today is Monday 2035-12-31 and it is 22:30 (e2e/fixedTime.ts): tomorrow is another year.
// The browser reads the time in UTC, as the account does.
test.use({ timezoneId: 'UTC' });

interface ScheduleView {
  interval_hours: number | null;
  clock: string;
  cycle_on_days: number | null;
  cycle_off_days: number | null;
  end_date: string | null;
  steps: { days: number; quantity: number }[];
  max_per_day: number | null;
  min_gap_minutes: number | null;
  times: string[];
}

async function schedules(request: APIRequestContext, user: TestUser): Promise<Record<string, ScheduleView>> {
  const response = await request.get('/api/medications', { headers: { Authorization: `Bearer ${user.token}` } });
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as { data: { name: string; schedule: ScheduleView }[] };
  return Object.fromEntries(body.data.map((m) => [m.name, m.schedule]));
}

/**
 * Four hours after a dose taken at 22:30 and some seconds (the server's clock runs on from
 * 22:30 as the test goes): tomorrow, at half past two in the night.
 */
const NEXT_ALLOWED = /^The next dose is allowed tomorrow at 2:3\d\sAM$/;

test.describe('schedules people actually have', () => {
  test('every 8 hours, then a cycle with an end date and a tapering plan, and the server refusing a wall-clock interval', async ({
    page,
    request,
  }) => {
    const user = await freshUserAt(page, request, '/medications');
    await page.getByRole('button', { name: 'Add Medication' }).click();
    const add = page.getByRole('dialog', { name: 'Add Medication' });
    await add.getByLabel('Name').fill('Prednisolone');
    // The common case stays short: the other rules wait behind the disclosure.
    const more = add.getByRole('button', { name: 'More schedule options' });
    await expect(more).toHaveAttribute('aria-expanded', 'false');
    await expect(add.getByLabel('Every N hours')).toBeHidden();
    await more.click();
    await expect(more).toHaveAttribute('aria-expanded', 'true');
    await add.getByLabel('Every N hours').fill('8');
    // An interval counts from one time: the first dose's.
    await add.getByLabel('Time of the first dose').fill('06:00');
    await expect(add.getByRole('radio', { name: /Fixed hours between doses/ })).toBeChecked();
    await add.getByRole('button', { name: 'Add Medication' }).click();
    await expect(add).toBeHidden();

    const card = page.getByTestId('medication-card').filter({ hasText: 'Prednisolone' });
    await expect(card.locator('.med-schedule')).toHaveText('Every 8 hours from 6:00 AM');
    expect((await schedules(request, user)).Prednisolone).toMatchObject({
      interval_hours: 8,
      clock: 'elapsed',
      times: ['06:00'],
    });

    // Edit: no interval any more, 21 days on and 7 off, an end date and a tapering plan.
    await card.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByTestId('medication-card').filter({ has: page.getByRole('heading', { name: 'Edit Prednisolone' }) });
    await expect(edit.getByRole('button', { name: 'More schedule options' })).toHaveAttribute('aria-expanded', 'true');
    await edit.getByLabel('Every N hours').fill('');
    await expect(edit.getByLabel('Time 1', { exact: true })).toHaveValue('06:00');
    await edit.getByLabel('Which days').selectOption({ label: 'Days on, then days off' });
    await expect(edit.getByLabel('Days on')).toHaveValue('21');
    await expect(edit.getByLabel('Days off')).toHaveValue('7');
    // Sixty days on: a leap day.
    const end = '2036-02-29';
    await edit.getByLabel('End date').fill(end);
    await edit.getByRole('button', { name: 'Add step' }).click();
    await edit.getByRole('button', { name: 'Add step' }).click();
    const first = edit.getByRole('listitem', { name: 'Step 1' });
    await first.getByLabel('Days').fill('5');
    await first.getByLabel('Amount (tablets)').fill('2');
    const second = edit.getByRole('listitem', { name: 'Step 2' });
    await second.getByLabel('Days').fill('4');
    await second.getByLabel('Amount (tablets)').fill('1');
    await edit.getByRole('button', { name: 'Save' }).click();

    const schedule = card.locator('.med-schedule');
    await expect(schedule).toContainText('Daily at 6:00 AM · 21 days on, 7 off');
    await expect(schedule).toContainText('2 tablets for 5 days, then 1 tablet for 4 days');
    await expect(schedule).toContainText('Until ');
    expect((await schedules(request, user)).Prednisolone).toMatchObject({
      interval_hours: null,
      clock: 'wall',
      cycle_on_days: 21,
      cycle_off_days: 7,
      end_date: end,
      steps: [
        { days: 5, quantity: 2 },
        { days: 4, quantity: 1 },
      ],
    });

    // Removing a step sends the shorter plan.
    await card.getByRole('button', { name: 'Edit' }).click();
    await edit.getByRole('button', { name: 'Remove step 2' }).click();
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(schedule).toContainText('2 tablets for 5 days');
    await expect(schedule).not.toContainText('then');

    // Every 5 hours on the wall clock does not fit a day: the server's message is shown.
    await card.getByRole('button', { name: 'Edit' }).click();
    await edit.getByLabel('Which days').selectOption({ label: 'Every day' });
    await edit.getByLabel('Every N hours').fill('5');
    await edit.getByRole('radio', { name: /Same time of day/ }).check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(edit.getByRole('alert')).toHaveText(
      'Every 5 hours does not fit into a day on the wall clock: choose an interval that divides 24, or clock "elapsed"',
    );
    expect((await schedules(request, user)).Prednisolone?.interval_hours).toBeNull();
  });

  test('as needed: limits on the card, "The next dose is allowed", and Take anyway? on Today', async ({ page, request }) => {
    test.setTimeout(90_000);
    const user = await freshUserAt(page, request, '/medications');
    await page.getByRole('button', { name: 'Add Medication' }).click();
    const add = page.getByRole('dialog', { name: 'Add Medication' });
    await add.getByLabel('Name').fill('Paracetamol');
    await add.getByLabel('Frequency').selectOption('as_needed');
    await add.getByLabel('Most doses in 24 hours').fill('3');
    await expect(add.getByTestId('max-per-day-words')).toHaveText('At most 3 doses in 24 hours');
    await add.getByRole('group', { name: 'Least time between doses' }).getByLabel('Hours', { exact: true }).fill('4');
    await add.getByRole('button', { name: 'Add Medication' }).click();
    await expect(add).toBeHidden();
    const card = page.getByTestId('medication-card').filter({ hasText: 'Paracetamol' });
    await expect(card.locator('.med-schedule')).toHaveText('As needed · At most 3 doses in 24 hours · At least 4 h apart');
    await expect(card.getByTestId('next-dose-allowed')).toHaveCount(0);

    await page.goto('/today');
    const today = page.getByTestId('today-medication').filter({ hasText: 'Paracetamol' });
    const logTaken = async () => {
      await today.getByRole('button', { name: 'Taken' }).click();
      await page.getByRole('dialog', { name: /Paracetamol/ }).getByRole('button', { name: /Log/ }).click();
    };
    await logTaken();
    await expect(page.getByText('Paracetamol logged as taken.')).toBeVisible();
    await expect(today.getByTestId('next-dose-allowed')).toHaveText(NEXT_ALLOWED);

    // Too soon: the server refuses, the app asks.
    await logTaken();
    const ask = page.getByRole('dialog', { name: 'Take anyway?' });
    await expect(ask.getByTestId('take-anyway-text')).toHaveText(
      /^The next dose of Paracetamol is allowed tomorrow at 2:3\d\sAM\.$/,
    );
    await expect(ask.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await expect(ask).toBeHidden();
    const history = async () => {
      const response = await request.get('/api/medications/history', {
        headers: { Authorization: `Bearer ${user.token}` },
      });
      return ((await response.json()) as { data: unknown[] }).data.length;
    };
    expect(await history()).toBe(1);

    await logTaken();
    await ask.getByRole('button', { name: 'Take anyway' }).click();
    await expect(ask).toBeHidden();
    await expect(page.getByText('Paracetamol logged as taken.')).toBeVisible();
    expect(await history()).toBe(2);

    await page.goto('/medications');
    await expect(card.getByTestId('next-dose-allowed')).toHaveText(NEXT_ALLOWED);
  });

  test('as needed: the most in 24 hours waits for the oldest dose to be 24 hours old, said as today, tomorrow or a date', async ({
    page,
    request,
  }) => {
    const user = await freshUserAt(page, request, '/today');
    const { id } = await createMedication(request, user, {
      name: 'Naproxen',
      unit: 'tablets',
      frequency: 'as_needed',
      schedule: { max_per_day: 1 },
    });
    // One dose an hour ago: the next is allowed 24 hours after it (tomorrow, New Year's Day,
    // at 21:30), not at midnight as a calendar day would have it.
    const taken = '2035-12-31T21:30:00.000Z';
    await logDose(request, user, id, { status: 'taken', quantity: 1, dosage_unit: 'tablets', taken });
    const when = 'tomorrow at 9:30 PM';

    await page.reload();
    const card = page.getByTestId('today-medication').filter({ hasText: 'Naproxen' });
    await expect(card.getByTestId('next-dose-allowed')).toHaveText(`The next dose is allowed ${when}`);
    await card.getByRole('button', { name: 'Taken' }).click();
    await page.getByRole('dialog', { name: /Naproxen/ }).getByRole('button', { name: /Log/ }).click();
    const ask = page.getByRole('dialog', { name: 'Take anyway?' });
    await expect(ask.getByTestId('take-anyway-text')).toHaveText(
      `Naproxen has reached its most doses in 24 hours. The next dose is allowed ${when}.`,
    );
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await expect(ask).toBeHidden();
  });

  test('changing the time zone first says which doses stay at their time and which keep their interval', async ({
    page,
    request,
  }) => {
    const user = await freshUserAt(page, request, '/medications');
    const headers = { Authorization: `Bearer ${user.token}` };
    const zone = await request.put('/api/settings', { headers, data: { timezone: 'Europe/Berlin' } });
    expect(zone.ok(), await zone.text()).toBe(true);
    for (const data of [
      { name: 'Vitamin D', unit: 'tablets', frequency: 'daily', schedule: { times: ['08:00'] } },
      { name: 'Dolutegravir', unit: 'tablets', frequency: 'daily', schedule: { times: ['21:00'], clock: 'elapsed' } },
      { name: 'Paracetamol', unit: 'tablets', frequency: 'as_needed' },
    ]) {
      const created = await request.post('/api/medications', { headers, data });
      expect(created.status(), await created.text()).toBe(201);
    }
    await page.goto('/settings?section=appearance');
    const select = page.getByRole('combobox', { name: 'Time zone' });
    await expect(select).toHaveValue('Europe/Berlin');
    await select.selectOption('America/New_York');
    const ask = page.getByRole('dialog', { name: 'Change your time zone to America/New_York?' });
    await expect(ask.getByTestId('travel-same-time').getByRole('listitem')).toHaveText(['Vitamin D']);
    await expect(ask.getByTestId('travel-keep-interval').getByRole('listitem')).toHaveText(['Dolutegravir']);
    await expect(ask).toContainText('their times on the clock move by -6 h');
    // Cancel keeps the old zone.
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await expect(ask).toBeHidden();
    const kept = await request.get('/api/settings', { headers });
    expect(((await kept.json()) as { data: { timezone: string } }).data.timezone).toBe('Europe/Berlin');

    await select.selectOption('America/New_York');
    await ask.getByRole('button', { name: 'Change time zone' }).click();
    await expect(page.getByText('Time zone saved')).toBeVisible();
    await expect(select).toHaveValue('America/New_York');
  });
});


import type { APIRequestContext } from '@playwright/test';
import { expect, registerUser, signIn, test, type TestUser } from './fixtures';
import { createMedication } from './medsHelpers';
import { pageNow, runTimersFor } from './pageClock';

async function entries(request: APIRequestContext, user: TestUser): Promise<{ id: number; taken: string }[]> {
  const response = await request.get('/api/medications/history', { headers: { Authorization: `Bearer ${user.token}` } });
  expect(response.ok()).toBe(true);
  return ((await response.json()) as { data: { id: number; taken: string }[] }).data;
}

test.describe('Today never records a dose twice without asking', () => {
  test('one control per due dose, Undo for 10 seconds gives the slot and the stock back, and a second dose is asked for', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const user = await registerUser(request);
    await createMedication(request, user, {
      name: 'Metformin',
      unit: 'tablets',
      frequency: 'daily',
      default_quantity: 1,
      schedule: { times: ['00:00'] },
      inventory: {
        enabled: true,
        inventory_type: 'discrete',
        container_type: 'pill_bottle',
        item_quantity: 30,
        item_unit: 'tablets',
        current_quantity: 10,
      },
    });
    // The page's clock runs the Undo's 10 seconds at once (below).
    await page.clock.install();
    await signIn(page, user, '/today');
    const slot = page.getByRole('region', { name: 'Scheduled today' }).getByTestId('today-dose');
    const card = page.getByTestId('today-medication').filter({ hasText: 'Metformin' });
    await expect(slot.getByTestId('today-dose-status')).toHaveText('Due', { timeout: 20_000 });
    await expect(card.getByTestId('stock-quantity')).toHaveText('10 tablets');
    // The due dose has its Take and Skip; the card offers no second Taken for it.
    await expect(page.getByRole('button', { name: /taken/i })).toHaveCount(1);
    await expect(card.getByRole('button', { name: 'Taken' })).toHaveCount(0);

    await slot.getByRole('button', { name: 'Mark Metformin at 12:00 AM as taken' }).click();
    const feedback = page.getByTestId('today-feedback');
    await expect(feedback).toContainText('Metformin logged as taken.');
    await expect(slot.getByTestId('today-dose-status')).toHaveText('Taken');
    await expect(card.getByTestId('stock-quantity')).toHaveText('9 tablets');
    expect(await entries(request, user)).toHaveLength(1);

    // Undo deletes the entry just written: the slot is due again and the tablet is back.
    await feedback.getByRole('button', { name: 'Undo logging Metformin' }).click();
    await expect(feedback).toHaveText('Undone: the dose of Metformin is no longer recorded.');
    await expect(slot.getByTestId('today-dose-status')).toHaveText('Due');
    await expect(card.getByTestId('stock-quantity')).toHaveText('10 tablets');
    expect(await entries(request, user)).toHaveLength(0);

    // Skip can be undone the same way.
    await slot.getByRole('button', { name: 'Skip Metformin at 12:00 AM' }).click();
    await expect(slot.getByTestId('today-dose-status')).toHaveText('Skipped');
    await feedback.getByRole('button', { name: 'Undo logging Metformin' }).click();
    await expect(slot.getByTestId('today-dose-status')).toHaveText('Due');
    expect(await entries(request, user)).toHaveLength(0);

    // After 10 seconds the Undo is gone and the entry stays. Its 10 s start between the
    // click and the status shown; the page's timers run to 9 s after the first, then past
    // 10 s after the second.
    const clickedAt = await pageNow(page);
    await slot.getByRole('button', { name: 'Mark Metformin at 12:00 AM as taken' }).click();
    await expect(slot.getByTestId('today-dose-status')).toHaveText('Taken');
    const shownAt = await pageNow(page);
    await runTimersFor(page, clickedAt + 9_000 - shownAt);
    await expect(feedback.getByRole('button', { name: 'Undo logging Metformin' })).toBeVisible();
    await runTimersFor(page, shownAt + 10_500 - (await pageNow(page)));
    await expect(feedback).toBeHidden({ timeout: 3_000 });
    const [first] = await entries(request, user);
    expect(first).toBeDefined();

    // The dose of today is taken, so the card's Taken is back for an extra dose, and asks
    // first, with the time the dose was taken.
    const logFromCard = async () => {
      await card.getByRole('button', { name: 'Taken' }).click();
    };
    const time = await page.evaluate(
      (instant) => new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', hour12: true }).format(new Date(instant)),
      first?.taken ?? '',
    );
    await logFromCard();
    const ask = page.getByRole('dialog', { name: 'Already taken' });
    await expect(ask).toContainText(`Already taken at ${time} — log another dose?`);
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await expect(ask).toBeHidden();
    expect(await entries(request, user)).toHaveLength(1);

    await logFromCard();
    await ask.getByRole('button', { name: 'Log another dose' }).click();
    await page.getByRole('dialog', { name: /Metformin/ }).getByRole('button', { name: /Log/ }).click();
    await expect(feedback).toContainText('Metformin logged as taken.');
    expect(await entries(request, user)).toHaveLength(2);
  });
});

import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test, type TestUser } from './fixtures';
import { createMedication, freshUserAt, localDate, prescribedTablet } from './medsHelpers';

// Today's "To order" notice, as a phone shows it.
test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

/** A daily tablet with `left` tablets in stock and a prescription from the Apotheke am Markt. */
const prescribed = (name: string, left: number, prescription: Record<string, unknown> = {}) =>
  prescribedTablet(name, left, prescription);

async function setUp(page: Page, request: APIRequestContext): Promise<TestUser> {
  const user = await freshUserAt(page, request, '/today');
  // Runs out in 3 days: the day to order (7 days before) has passed.
  await createMedication(request, user, prescribed('Metformin', 3));
  // Runs out in 7 days: today is the day to order (a refill is asked for from that day on).
  await createMedication(request, user, prescribed('Ramipril', 7, { refills_left: 0, pharmacy_phone: '', pharmacy_url: '' }));
  // Runs out in 60 days: nothing to order yet.
  await createMedication(request, user, prescribed('Vitamin D', 60));
  await page.reload();
  return user;
}

test.describe('the refill notice on Today', () => {
  test('says what to order and by when, with the pharmacy; "Mark as ordered" takes it off', async ({ page, request }) => {
    await setUp(page, request);
    const notice = page.getByTestId('refill-notice');
    await expect(notice.getByRole('heading', { name: 'To order' })).toBeVisible();
    const items = notice.getByTestId('refill-item');
    await expect(items).toHaveCount(2);
    const metformin = items.filter({ hasText: 'Metformin' });
    const ramipril = items.filter({ hasText: 'Ramipril' });
    await expect(metformin).toContainText('Order a refill now: the stock runs out around');
    await expect(metformin.getByRole('link', { name: '+49 30 1234567' })).toHaveAttribute('href', 'tel:+49301234567');
    await expect(metformin.getByRole('link', { name: 'Order online' })).toHaveAttribute('href', 'https://apotheke.example/order');
    // No refills left: a new prescription, on its day to order (today).
    await expect(ramipril).toContainText('Ask for a new prescription today: the stock runs out around');
    await expect(ramipril.getByRole('link')).toHaveCount(0);
    await expect(notice).not.toContainText('Vitamin D');

    await metformin.getByRole('button', { name: 'Mark the refill of Metformin as ordered' }).click();
    await expect(page.getByTestId('today-feedback')).toHaveText(
      'Refill of Metformin marked as ordered: add the stock when it arrives.',
    );
    await expect(items).toHaveCount(1);
    await expect(items).toContainText('Ramipril');
    // The server keeps it: after a reload it is still ordered, and the Medications card says so.
    await page.reload();
    await expect(page.getByTestId('refill-item')).toHaveCount(1);
    await page.goto('/medications');
    const card = page.getByTestId('medication-card').filter({ hasText: 'Metformin' });
    await expect(card.getByTestId('prescription-line')).toContainText('Refill ordered');

    // The last one marked ordered: the notice goes.
    await page.goto('/today');
    await page
      .getByTestId('refill-notice')
      .getByRole('button', { name: 'Mark the refill of Ramipril as ordered' })
      .click();
    await expect(page.getByTestId('today-feedback')).toContainText('New prescription for Ramipril');
    await expect(page.getByTestId('refill-notice')).toHaveCount(0);
    await expect(page.getByTestId('today-medication')).toHaveCount(3);
  });

  test('speaks German and fits a phone', async ({ page, request }) => {
    const user = await setUp(page, request);
    // The account's own language (the app takes the server's settings over this device's).
    const saved = await request.put('/api/settings', {
      headers: { Authorization: `Bearer ${user.token}` },
      data: { language: 'de' },
    });
    expect(saved.ok(), await saved.text()).toBe(true);
    await page.reload();
    const notice = page.getByTestId('refill-notice');
    await expect(notice.getByRole('heading', { name: 'Zu bestellen' })).toBeVisible();
    await expect(notice.getByTestId('refill-item').filter({ hasText: 'Metformin' })).toContainText(
      'Jetzt nachbestellen: der Vorrat reicht etwa bis',
    );
    await expect(notice.getByTestId('refill-item').filter({ hasText: 'Ramipril' })).toContainText(
      'Heute um ein neues Rezept bitten:',
    );
    await expect(notice.getByRole('button', { name: 'Nachbestellung von Metformin als bestellt markieren' })).toHaveText(
      'Als bestellt markieren',
    );
    // Nothing sticks out to the right, and every control is big enough to tap.
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    expect(widths.page).toBeLessThanOrEqual(widths.screen);
    const controls = notice.locator('button:visible, a:visible');
    for (let i = 0; i < (await controls.count()); i += 1) {
      const box = await controls.nth(i).boundingBox();
      expect(box?.height ?? 0).toBeGreaterThanOrEqual(40);
      expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 390).toBe(true);
    }
    await notice.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath('refill-notice-de.png') });
  });

  test('a batch that expires soon shows on its Today card', async ({ page, request }) => {
    const user = await freshUserAt(page, request, '/today');
    const { id } = await createMedication(request, user, { name: 'Amoxicillin', unit: 'tablets', frequency: 'as_needed', default_quantity: 1 });
    const response = await request.post(`/api/medications/${id}/inventory/batches`, {
      data: { quantity: 6, expires_on: await localDate(page, 12), lot: 'A-12' },
      headers: { Authorization: `Bearer ${user.token}` },
    });
    expect(response.status(), await response.text()).toBe(201);
    await page.reload();
    const card = page.getByTestId('today-medication').filter({ hasText: 'Amoxicillin' });
    await expect(card.getByTestId('batch-expiring')).toContainText('Lot A-12 expires on');
    await expect(card.getByTestId('batch-expiring')).toContainText('6 tablets left');
    // Not a refill: the notice is not there.
    await expect(page.getByTestId('refill-notice')).toHaveCount(0);
  });
});

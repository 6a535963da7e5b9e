import { expect, test } from '@playwright/test';
import { freshUserAt } from './medsHelpers';

test.describe('the browser’s language before sign-in', () => {
  test('a German browser gets the sign-in page in German', async ({ browser }) => {
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto('/login');
    await expect(page.getByRole('heading', { name: 'Willkommen zurück' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Anmelden' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await context.close();
  });

  test('a language chosen on this device wins over the browser’s', async ({ browser }) => {
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto('/login');
    await page.evaluate(() => localStorage.setItem('dosage_app_settings', JSON.stringify({ language: 'es' })));
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Hola de nuevo' })).toBeVisible();
    await context.close();
  });

  test('an account registered from a German page stays German after signing in', async ({ browser }) => {
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto('/register');
    const email = `lena-${Date.now()}@example.com`;
    await page.getByLabel('E-Mail').fill(email);
    await page.getByLabel('Passwort', { exact: true }).fill('correct horse battery');
    await page.getByLabel('Passwort bestätigen').fill('correct horse battery');
    await page.getByRole('button', { name: 'Konto erstellen' }).click();
    // Signed in, the account's settings (now German) are the ones the app takes.
    await expect(page.getByRole('navigation', { name: 'Hauptnavigation' }).getByRole('link', { name: 'Heute' })).toBeVisible();
    const token = await page.evaluate(() => localStorage.getItem('token'));
    const settings = await page.request.get('/api/settings', { headers: { Authorization: `Bearer ${token}` } });
    expect(((await settings.json()) as { data: { language: string } }).data.language).toBe('de');
    await page.reload();
    await expect(page.getByRole('navigation', { name: 'Hauptnavigation' }).getByRole('link', { name: 'Heute' })).toBeVisible();
    await context.close();
  });
});

test.describe('a language picked in Settings', () => {
  test('fetches only that language, and switches once its texts are there: never a key on screen', async ({ browser, request }) => {
    // No service worker, so every file the page fetches passes the route below.
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const page = await context.newPage();
    const german: string[] = [];
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/de-[^/]+\.js$/, async (route) => {
      german.push(route.request().url());
      await released;
      await route.continue();
    });
    const spanish: string[] = [];
    page.on('request', (sent) => {
      if (/\/assets\/(es|fr)-[^/]+\.js$/.test(sent.url())) spanish.push(sent.url());
    });
    await freshUserAt(page, request, '/settings?section=appearance');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await expect(nav.getByRole('link', { name: 'Today' })).toBeVisible();
    expect(german).toEqual([]);

    await page.getByLabel('Language').selectOption('de');
    await expect.poll(() => german.length).toBeGreaterThan(0);
    // While German is on its way the page stays English, every text a text.
    await expect(nav.getByRole('link', { name: 'Today' })).toBeVisible();
    await expect(page.locator('body')).not.toContainText(/\b(nav|settings|common)\.[a-z]+[A-Za-z.]*/);
    release();
    await expect(page.getByRole('navigation', { name: 'Hauptnavigation' }).getByRole('link', { name: 'Heute' })).toBeVisible();
    await expect(page.locator('body')).not.toContainText(/\b(nav|settings|common)\.[a-z]+[A-Za-z.]*/);
    expect(spanish).toEqual([]);
    await context.close();
  });
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the time zone list filters as you type, shows offsets and today’s names', async ({ page, request }) => {
    const user = await freshUserAt(page, request, '/settings?section=appearance');
    const select = page.getByRole('combobox', { name: 'Time zone' });
    await expect(select).toBeVisible();
    const search = page.getByRole('searchbox', { name: 'Search time zones' });
    await expect(search).toBeVisible();
    // The field fits the phone's width.
    const box = await search.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);

    await search.fill('kolk');
    await expect(page.getByText('1 time zone found')).toBeVisible();
    // The zone in use stays in the list; the match shows its offset and current name.
    await expect(select.locator('option')).toHaveText([/^\(UTC\+00:00\) UTC/, '(UTC+05:30) Asia/Kolkata']);
    await search.fill('kiev');
    await expect(page.getByText('0 time zones found')).toBeVisible();
    await search.fill('kyiv');
    await expect(select.locator('option', { hasText: 'Europe/Kyiv' })).toHaveText(/^\(UTC\+0[23]:00\) Europe\/Kyiv$/);

    await search.fill('+05:30');
    await select.selectOption('Asia/Kolkata');
    await expect(page.getByText('Time zone saved')).toBeVisible();
    const saved = await request.get('/api/settings', { headers: { Authorization: `Bearer ${user.token}` } });
    expect(((await saved.json()) as { data: { timezone: string } }).data.timezone).toBe('Asia/Kolkata');
  });
});

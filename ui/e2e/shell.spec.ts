import { expect, serverVersion, signIn, test } from './fixtures';

const ENTRIES = ['Medications', 'Today', 'Notifications', 'History', 'People', 'Settings'];

test.describe('shell on a desktop (1280×800)', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('the sidebar is fixed at 256 px with six entries, the user and the version', async ({
    page,
    request,
    account,
  }) => {
    await signIn(page, account, '/');
    const sidebar = page.getByTestId('sidebar');
    await expect(sidebar).toBeVisible();
    await expect(page).toHaveURL(/\/$/);

    const box = await sidebar.boundingBox();
    expect(box?.width).toBe(256);
    expect(box?.x).toBe(0);
    const main = await page.locator('main').boundingBox();
    expect(main?.x).toBeGreaterThanOrEqual(256);

    const nav = sidebar.getByRole('navigation', { name: 'Main navigation' });
    await expect(nav.getByRole('link')).toHaveText(ENTRIES);
    await expect(nav.getByRole('link', { name: 'Medications' })).toHaveAttribute('aria-current', 'page');

    await expect(sidebar.getByTestId('user-email')).toHaveText(account.email);
    await expect(sidebar.getByTestId('user-initial')).toHaveText(account.email.charAt(0).toUpperCase());
    await expect(sidebar.getByTestId('version-label')).toHaveText(await serverVersion(request));
    await expect(page.getByTestId('menu-button')).toBeHidden();
  });

  test('entries navigate and Sign Out returns to /login with storage cleared', async ({ page, account }) => {
    await signIn(page, account, '/medications');
    const sidebar = page.getByTestId('sidebar');
    await sidebar.getByRole('link', { name: 'History' }).click();
    await expect(page).toHaveURL(/\/history$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('History');

    await sidebar.getByRole('button', { name: 'Sign Out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByTestId('sidebar')).toHaveCount(0);
    const stored = await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('user')]);
    expect(stored).toEqual([null, null]);

    await page.goto('/settings');
    await expect(page).toHaveURL(/\/login$/);
  });
});

test.describe('shell on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the sidebar is a drawer: menu opens it; backdrop, Escape and navigation close it', async ({
    page,
    account,
  }) => {
    await signIn(page, account, '/medications');
    const sidebar = page.getByTestId('sidebar');
    const menu = page.getByTestId('menu-button');
    await expect(menu).toBeVisible();
    await expect(menu).toHaveAccessibleName('Open menu');
    await expect(sidebar).toBeHidden();

    await menu.click();
    await expect(sidebar).toBeVisible();
    await expect(sidebar.getByTestId('user-email')).toHaveText(account.email);
    await page.getByTestId('drawer-backdrop').click({ position: { x: 360, y: 400 } });
    await expect(sidebar).toBeHidden();

    await menu.click();
    await expect(sidebar).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(sidebar).toBeHidden();

    await menu.click();
    await sidebar.getByRole('button', { name: 'Close menu' }).click();
    await expect(sidebar).toBeHidden();

    await menu.click();
    await sidebar.getByRole('link', { name: 'Today' }).click();
    await expect(page).toHaveURL(/\/today$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Today');
    await expect(sidebar).toBeHidden();
  });
});

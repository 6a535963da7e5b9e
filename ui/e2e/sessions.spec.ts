import type { Browser, Page, TestInfo } from '@playwright/test';
import { expect, registerUser, signIn, test } from './fixtures';

const storedToken = (page: Page) => page.evaluate(() => localStorage.getItem('token'));

/** A second browser, with its own storage: another device of the same person. */
async function otherDevice(browser: Browser, testInfo: TestInfo): Promise<Page> {
  const context = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    viewport: testInfo.project.use.viewport,
  });
  return context.newPage();
}

test('Sign Out ends this browser\'s session on the server; another device stays signed in', async ({
  page,
  browser,
  request,
}, testInfo) => {
  const account = await registerUser(request);
  const phone = await otherDevice(browser, testInfo);
  await signIn(page, account, '/medications');
  await signIn(phone, account, '/medications');
  await expect(page.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();
  const token = await storedToken(page);
  expect(token).not.toBeNull();

  await page.getByTestId('sidebar').getByRole('button', { name: 'Sign Out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  // Refused by the server, not only forgotten by the browser.
  await expect
    .poll(async () => (await request.get('/api/auth/me', { headers: { Authorization: `Bearer ${token}` } })).status())
    .toBe(401);

  await phone.getByTestId('sidebar').getByRole('link', { name: 'History' }).click();
  await expect(phone.getByRole('heading', { name: 'History', level: 1 })).toBeVisible();
  await expect(phone).toHaveURL(/\/history$/);
  await phone.context().close();
});

test('"Sign out of all devices" in one browser signs the other out on its next request', async ({
  page,
  browser,
  request,
}, testInfo) => {
  const account = await registerUser(request);
  const phone = await otherDevice(browser, testInfo);
  await signIn(page, account, '/settings?section=account');
  await signIn(phone, account, '/medications');
  await expect(phone.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();
  const phoneToken = await storedToken(phone);

  await page.getByRole('button', { name: 'Sign out of all devices' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign out of all devices?' });
  await expect(dialog).toContainText('this one included, will have to sign in again');
  await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible();
  expect(await storedToken(page)).toBeNull();

  // The phone still shows what it had; its next request is refused and it returns to sign-in.
  await expect(phone.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();
  await phone.getByTestId('sidebar').getByRole('link', { name: 'History' }).click();
  await expect(phone).toHaveURL(/\/login$/);
  await expect(phone.getByRole('button', { name: 'Sign In' })).toBeVisible();
  expect(await storedToken(phone)).toBeNull();
  const me = await request.get('/api/auth/me', { headers: { Authorization: `Bearer ${phoneToken}` } });
  expect(me.status()).toBe(401);

  // Signing in again works.
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();
  await phone.context().close();
});

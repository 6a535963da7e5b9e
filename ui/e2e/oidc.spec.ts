import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';

/**
 * Signing in through a real OpenID provider (oidc-provider, tests/oidc/provider.mjs) started
 * by playwright.config.ts with a Pillbox of its own that makes accounts for new people. The
 * provider's own login and consent forms are filled in as a person would: its development
 * login takes any name, which names the identity (`<name>@example.test`, verified).
 */

const app = (path: string) => `${process.env.E2E_OIDC_URL}${path}`;
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** At the provider's pages: signs in as `login` and agrees to share the details. */
async function atProvider(page: Page, login: string) {
  await page.getByPlaceholder('Enter any login').fill(login);
  await page.getByPlaceholder('and password').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('a new person signs in with the provider and arrives signed in on the page asked for', async ({ page }) => {
  const login = unique('nora');
  await page.goto(app('/today'));
  await expect(page).toHaveURL(/\/login$/);
  await page.getByRole('link', { name: 'Sign in with Authelia' }).click();
  await atProvider(page, login);
  await expect(page.getByRole('heading', { name: 'Today', level: 1 })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe('/today');
  // No session token travelled in an address.
  expect(page.url()).not.toContain('token');
});

test.describe('on a German page', () => {
  test.use({ locale: 'de-DE' });

  test('the account the provider makes speaks German', async ({ page }) => {
    const login = unique('lena');
    await page.goto(app('/login'));
    await page.getByRole('link', { name: 'Mit Authelia anmelden' }).click();
    await atProvider(page, login);
    await expect(page.getByRole('heading', { name: 'Medikamente', level: 1 })).toBeVisible();
    const token = await page.evaluate(() => localStorage.getItem('token'));
    const settings = await page.request.get(app('/api/settings'), { headers: { Authorization: `Bearer ${token}` } });
    const body = (await settings.json()) as { data: { language: string } };
    expect(body.data.language).toBe('de');
  });
});

test('an existing account links the provider with its password, then unlinks it in Settings', async ({ page }) => {
  const login = unique('kim');
  const email = `${login}@example.test`;
  const registered = await page.request.post(app('/api/auth/register'), {
    data: { email, password: 'kims-password' },
  });
  expect(registered.status()).toBe(201);

  await page.goto(app('/login'));
  await page.getByRole('link', { name: 'Sign in with Authelia' }).click();
  await atProvider(page, login);
  await expect(page.getByRole('heading', { name: 'Link your account', level: 1 })).toBeVisible();
  await expect(page.getByText(`You signed in with Authelia as ${email}.`)).toBeVisible();

  // A wrong password links nothing and says so.
  const password = page.getByLabel(`Password of ${email}`);
  await password.fill('not-kims-password');
  await page.getByRole('button', { name: 'Link and sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('That is not the password of this Pillbox account.');

  await password.fill('kims-password');
  await page.getByRole('button', { name: 'Link and sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();

  await page.goto(app('/settings?section=security'));
  const card = page.getByTestId('linked-sign-ins');
  const row = card.getByTestId('linked-sign-in');
  await expect(row.getByRole('heading', { name: 'Authelia' })).toBeVisible();
  await expect(row).toContainText(email);
  await row.getByRole('button', { name: 'Unlink' }).click();
  const dialog = page.getByRole('dialog', { name: 'Unlink this sign-in?' });
  await dialog.getByRole('button', { name: 'Unlink' }).click();
  await expect(card).toContainText('Authelia is no longer linked to your account.');
  await expect(card.getByTestId('linked-sign-in')).toHaveCount(0);
});

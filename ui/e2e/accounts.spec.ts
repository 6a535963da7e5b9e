import type { APIRequestContext, Page } from '@playwright/test';
import { expect, registerUser, signIn, test } from './fixtures';
import { MAIL_SERVER_URL, signInCode, verificationLink, waitForMail } from './mail';
import { verifiedMailUser } from './notifyHelpers';
import { base32Decode, stepAt, totp } from './totp';

const PASSWORD = 'correct-horse-battery';
let counter = 0;

function freshEmail(label: string): string {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}@example.com`;
}

async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

const codeBox = (page: Page, n: number) => page.getByRole('textbox', { name: `Digit ${n} of 6`, exact: true });

async function signOut(page: Page): Promise<void> {
  await page.getByTestId('sidebar').getByRole('button', { name: 'Sign Out' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

test('our RFC 6238 implementation gives the RFC test vectors', () => {
  // RFC 6238 appendix B, SHA-1 key "12345678901234567890", last 6 of 8 digits.
  const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
  expect(base32Decode(secret).toString('ascii')).toBe('12345678901234567890');
  expect(totp(secret, stepAt(59_000))).toBe('287082');
  expect(totp(secret, stepAt(1_111_111_109_000))).toBe('081804');
  expect(totp(secret, stepAt(1_234_567_890_000))).toBe('005924');
  expect(totp(secret, stepAt(20_000_000_000_000))).toBe('353130');
});

test.describe('sign-in errors', () => {
  test('a wrong password says "Invalid email or password"', async ({ page, account }) => {
    await page.goto('/login');
    await signInWithPassword(page, account.email, 'not-the-password');
    await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
    await expect(page).toHaveURL(/\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  });
});

test.describe('authenticator app', () => {
  test('enable TOTP in Settings, sign out, sign in with a code from the next step', async ({ page, request }) => {
    const account = await registerUser(request);
    await signIn(page, account, '/settings?section=security');
    await expect(page.getByRole('heading', { name: 'Privacy & Security', level: 2 })).toBeVisible();
    await expect(page.getByTestId('two-factor-state')).toHaveText('Off');

    await page.getByTestId('method-totp').getByRole('button', { name: 'Turn on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set up an authenticator app' });
    // The session alone is not enough: the password is asked again.
    const start = dialog.getByRole('button', { name: 'Start setup' });
    await expect(start).toBeDisabled();
    await dialog.getByLabel('Current password').fill(account.password);
    await start.click();

    const qr = dialog.getByRole('img', { name: 'QR code for your authenticator app' });
    await expect(qr).toBeVisible();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    // Drawn by the server: a real image, not a broken one.
    expect(await qr.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(50);
    await expect(dialog.getByTestId('totp-secret')).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Show key' }).click();
    const secret = (await dialog.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);

    const setupStep = stepAt(Date.now());
    await codeBox(page, 1).click();
    await page.keyboard.type(totp(secret, setupStep));

    const done = page.getByRole('dialog', { name: 'Authenticator app is on' });
    await expect(done).toBeVisible();
    await expect(done.getByTestId('backup-codes').getByRole('listitem')).toHaveCount(10);
    await done.getByRole('button', { name: 'I have saved these codes' }).click();
    await expect(done).toBeHidden();
    await expect(page.getByTestId('two-factor-state')).toHaveText('On');
    await expect(page.getByTestId('method-totp').getByRole('button', { name: 'Turn off' })).toBeVisible();
    // The change signed out other sessions; this one kept working with the new token.
    expect(await page.evaluate(() => localStorage.getItem('token'))).not.toBe(account.token);

    await signOut(page);
    await signInWithPassword(page, account.email, account.password);
    await expect(page.getByRole('heading', { name: 'Two-factor authentication' })).toBeVisible();
    await expect(page.getByText('Open your authenticator app and enter the 6-digit code it shows for Pillbox.')).toBeVisible();
    await expect(page.getByRole('radio')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Resend code' })).toHaveCount(0);

    // The setup code's step is used up; the next step's code is still within the window.
    await codeBox(page, 1).click();
    await page.keyboard.type(totp(secret, setupStep + 1));
    await expect(page.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();
    await expect(page).toHaveURL(/\/medications$/);
  });
});

test.describe('account deletion', () => {
  test('delete the account from Settings; signing in again fails', async ({ page, request }) => {
    const account = await registerUser(request);
    await signIn(page, account, '/settings?section=account');
    await expect(page.getByText('Active', { exact: true })).toBeVisible();
    await page.getByRole('button', { name: 'Delete Account' }).click();

    const dialog = page.getByRole('dialog', { name: 'Delete account' });
    const confirm = dialog.getByRole('button', { name: 'Delete my account' });
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel('Type DELETE to confirm').fill('delete');
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    // The word and the password, both.
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel('Current password').fill(account.password);
    await expect(confirm).toBeEnabled();
    await confirm.click();

    await expect(page).toHaveURL(/\/login$/);
    expect(await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('user')])).toEqual([null, null]);
    await signInWithPassword(page, account.email, account.password);
    await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
  });

  test('a wrong password says "Password is incorrect" and keeps the account', async ({ page, request }) => {
    const account = await registerUser(request);
    await signIn(page, account, '/settings?section=account');
    await page.getByRole('button', { name: 'Delete Account' }).click();

    const dialog = page.getByRole('dialog', { name: 'Delete account' });
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    await dialog.getByLabel('Current password').fill('not-the-password');
    await dialog.getByRole('button', { name: 'Delete my account' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Password is incorrect');
    await expect(page).toHaveURL(/\/settings\?section=account$/);
    // Still signed in.
    expect(await page.evaluate(() => localStorage.getItem('token'))).not.toBeNull();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();

    await signOut(page);
    await signInWithPassword(page, account.email, account.password);
    await expect(page.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();
  });
});

test.describe('with e-mail (SMTP server)', () => {
  test.use({ baseURL: MAIL_SERVER_URL });

  test('register, verify by the e-mailed link, sign in', async ({ page }) => {
    const email = freshEmail('register');
    await page.goto('/register');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill('something-else');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect(page.getByRole('alert')).toHaveText('Passwords do not match');
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create Account' }).click();

    await expect(page).toHaveURL(`/email-confirmation?email=${encodeURIComponent(email)}`);
    await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    await expect(page.getByTestId('confirmation-email')).toHaveText(email);

    // Not verified yet: signing in leads back here.
    await page.goto('/login');
    await signInWithPassword(page, email, PASSWORD);
    await expect(page).toHaveURL(`/email-confirmation?email=${encodeURIComponent(email)}`);

    const mail = await waitForMail(email, 1, /Confirm your e-mail address/);
    const link = verificationLink(mail);
    expect(link.startsWith(`${MAIL_SERVER_URL}/verify-email/`)).toBe(true);
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Email Verified!' })).toBeVisible();
    await page.getByRole('button', { name: 'Continue to Login' }).click();
    await expect(page).toHaveURL(/\/login\?verified=true$/);
    await expect(page.getByText('Your email address is verified. You can sign in now.')).toBeVisible();

    await signInWithPassword(page, email, PASSWORD);
    await expect(page.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();

    // The link works once.
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Verification Failed' })).toBeVisible();
  });

  test('turn on e-mail codes in Settings with the password; the next sign-in asks for one', async ({ page, request }) => {
    const account = await verifiedMailUser(request, 'codes');
    await signIn(page, account, '/settings?section=security');
    await expect(page.getByTestId('two-factor-state')).toHaveText('Off');

    await page.getByTestId('method-email').getByRole('button', { name: 'Turn on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn on email codes' });
    await expect(dialog.getByText(`a code will be sent to ${account.email}`)).toBeVisible();
    const submit = dialog.getByRole('button', { name: 'Turn on' });
    await expect(submit).toBeDisabled();
    await dialog.getByLabel('Current password').fill(PASSWORD);
    await submit.click();

    const done = page.getByRole('dialog', { name: 'Email codes are on' });
    await expect(done.getByTestId('backup-codes').getByRole('listitem')).toHaveCount(10);
    await done.getByRole('button', { name: 'I have saved these codes' }).click();
    await expect(done).toBeHidden();
    await expect(page.getByTestId('two-factor-state')).toHaveText('On');
    await expect(page.getByTestId('method-email').getByRole('button', { name: 'Turn off' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('token'))).not.toBe(account.token);

    await signOut(page);
    await signInWithPassword(page, account.email, PASSWORD);
    await expect(page.getByText(`We sent a 6-digit code to your email (${account.email}). Enter it below.`)).toBeVisible();
    // Message 1 is the verification link.
    const code = signInCode(await waitForMail(account.email, 2, /sign-in code/));
    await codeBox(page, 1).click();
    await page.keyboard.type(code);
    await expect(page.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();
  });

  test('the six boxes take an e-mailed code by paste and by keys', async ({ page, request, context }) => {
    const email = await verifiedUserWithEmailCodes(request);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: MAIL_SERVER_URL });

    await page.goto('/login');
    await signInWithPassword(page, email, PASSWORD);
    await expect(page.getByText(`We sent a 6-digit code to your email (${email}). Enter it below.`)).toBeVisible();
    await expect(page.getByRole('radio')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Resend code' })).toBeVisible();
    const first = signInCode(await waitForMail(email, 2, /sign-in code/));

    await codeBox(page, 1).click();
    await page.evaluate((text) => navigator.clipboard.writeText(text), `Code: ${first.slice(0, 3)}-${first.slice(3)}\n`);
    await page.keyboard.press('ControlOrMeta+V');
    await expect(page.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();

    await signOut(page);
    await signInWithPassword(page, email, PASSWORD);
    const second = signInCode(await waitForMail(email, 3, /sign-in code/));
    await codeBox(page, 1).click();
    // A wrong digit first, fixed with Backspace.
    await page.keyboard.type(second.slice(0, 2));
    await page.keyboard.type('x');
    await expect(codeBox(page, 3)).toHaveValue('');
    await page.keyboard.type(second.slice(2, 5));
    await page.keyboard.press('Backspace');
    await expect(codeBox(page, 5)).toHaveValue('');
    await page.keyboard.type(second.slice(4));
    await expect(page.getByRole('heading', { name: 'Medications', level: 1 })).toBeVisible();
  });
});

/**
 * A verified, signed-in account on the SMTP server, made through the API (the browser
 * journey of registration is tested above). Its first message is the verification link.
 */
/** A verified account (as `verifiedMailUser`), with e-mail codes turned on (which asks for the password again). */
async function verifiedUserWithEmailCodes(request: APIRequestContext): Promise<string> {
  const account = await verifiedMailUser(request, 'codes');
  const setup = await request.post(`${MAIL_SERVER_URL}/api/auth/2fa/setup-email`, {
    headers: { Authorization: `Bearer ${account.token}` },
    data: { password: PASSWORD },
  });
  expect(setup.ok(), await setup.text()).toBe(true);
  return account.email;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { MAIL_SERVER_URL, waitForMail, type Mail } from './mail';
import { verifiedMailUser } from './notifyHelpers';

const NEW_PASSWORD = 'a-brand-new-password';

function resetLink(mail: Mail): string {
  const link = /https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no /reset-password/ link in:\n${mail.text}`);
  return link;
}

test('a forgotten password: the link is mailed, sets a new password once, and the new one signs in', async ({
  page,
  request,
}) => {
  const user = await verifiedMailUser(request, 'forgot');
  await page.goto(`${MAIL_SERVER_URL}/login`);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await page.getByLabel('Email').fill(user.email);
  await page.getByRole('button', { name: 'Send link' }).click();
  await expect(page.getByTestId('forgot-outcome')).toHaveText(
    `If ${user.email} has a Pillbox account, a link to choose a new password is on its way. It works once, for 1 hour. Check your spam folder if it does not arrive.`,
  );

  // The first mail was the verification link; the second is the reset link.
  const link = resetLink(await waitForMail(user.email, 2, /Reset your Pillbox password/));
  expect(link.startsWith(`${MAIL_SERVER_URL}/reset-password/`)).toBe(true);
  await page.goto(link);
  await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel('Confirm new password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page).toHaveURL(/\/login\?reset=true$/);
  await expect(page.getByText('Your password is changed and every device was signed out.')).toBeVisible();

  // The old password no longer signs in; the new one does.
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
  await page.getByLabel('Password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page).toHaveURL(/\/medications$/);
  const oldSession = await request.get(`${MAIL_SERVER_URL}/api/auth/me`, {
    headers: { Authorization: `Bearer ${user.token}` },
  });
  expect(oldSession.status()).toBe(401);

  // The link works once.
  await page.evaluate(() => localStorage.clear());
  await page.goto(link);
  await page.getByLabel('New password', { exact: true }).fill('another-password');
  await page.getByLabel('Confirm new password').fill('another-password');
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByRole('alert')).toHaveText('This link is invalid or has expired: ask for a new one');
  await expect(page.getByRole('link', { name: 'Ask for a new link' })).toHaveAttribute('href', '/forgot-password');
});

test.describe('a server whose sign-ups are closed', () => {
  let server: ChildProcess | undefined;
  let dataDir: string | undefined;
  const port = Number(process.env.PILLBOX_E2E_PORT ?? 3911) + 2;
  const url = `http://127.0.0.1:${port}`;

  test.beforeAll(async () => {
    const binary = process.env.PILLBOX_BIN ?? '../target/release/pillbox';
    dataDir = mkdtempSync(join(tmpdir(), 'pillbox-e2e-closed-'));
    const env: NodeJS.ProcessEnv = { ...process.env, PILLBOX_SIGNUPS: 'closed', PILLBOX_LOG_LEVEL: 'warn' };
    delete env.PILLBOX_BIN;
    delete env.PILLBOX_E2E_PORT;
    server = spawn(binary, ['serve', '--bind', `127.0.0.1:${port}`, '--data-dir', dataDir], {
      env,
      stdio: 'ignore',
    });
    await expect
      .poll(
        async () => {
          try {
            return (await fetch(`${url}/health`)).ok;
          } catch {
            return false;
          }
        },
        { timeout: 30_000, message: 'the closed-sign-ups server starts' },
      )
      .toBe(true);
  });

  test.afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('the sign-in page offers no "Create an account", and /register says why', async ({ page }) => {
    // The answer that decides; then the link must stay away.
    const registration = page.waitForResponse((response) => response.url().endsWith('/api/auth/registration'));
    await page.goto(`${url}/login`);
    expect((await registration).ok()).toBe(true);
    await expect(page.getByRole('link', { name: 'Forgot password?' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Create an account' })).toHaveCount(0);
    await expect(page.getByText("Don't have an account?")).toHaveCount(0);

    await page.goto(`${url}/register`);
    await expect(page.getByRole('heading', { name: 'Sign-ups are closed' })).toBeVisible();
    await expect(page.getByTestId('registration-closed')).toHaveText(
      'This server does not take new accounts. Ask its administrator to make one for you, or sign in if you have an account.',
    );
    await expect(page.getByLabel('Email')).toHaveCount(0);
  });
});

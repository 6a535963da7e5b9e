import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type CDPSession, type Page } from '@playwright/test';
import { stepAt, totp } from './totp';

/**
 * Passkeys with Chromium's virtual authenticator (DevTools' WebAuthn domain): a passkey
 * added in Settings signs in with no e-mail address typed, and stands in for the code after
 * the password when two-factor is on. Passkeys belong to the server's public_url, so this
 * spec starts a Pillbox of its own whose public_url is the address the page opens
 * (http://localhost is a secure context; browsers take no IP address as a passkey's site).
 */

const PASSWORD = 'correct-horse-battery';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

let server: ChildProcess | undefined;
let dataDir = '';
let origin = '';
let log = '';

test.beforeAll(async () => {
  const port = await freePort();
  origin = `http://localhost:${port}`;
  const binary = process.env.PILLBOX_BIN ?? '../target/release/pillbox';
  dataDir = mkdtempSync(join(tmpdir(), 'pillbox-e2e-passkeys-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PILLBOX_SIGNUPS: 'open',
    PILLBOX_PUBLIC_URL: origin,
    PILLBOX_LOG_LEVEL: 'info',
  };
  delete env.PILLBOX_BIN;
  delete env.PILLBOX_E2E_PORT;
  const child = spawn(binary, ['serve', '--bind', `127.0.0.1:${port}`, '--data-dir', dataDir], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  server = child;
  await expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`pillbox exited (${child.exitCode}):\n${log}`);
        return fetch(`${origin}/health`).then((r) => r.ok, () => false);
      },
      { message: 'the passkey server starts', timeout: 30_000, intervals: [100] },
    )
    .toBe(true);
});

test.afterAll(async () => {
  const child = server;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A fresh account on this spec's server: its address and a session token. */
async function account(): Promise<{ email: string; token: string }> {
  const email = `passkey-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}@example.com`;
  const response = await fetch(`${origin}/api/auth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  const body = (await response.json()) as { data: { token: string } };
  return { email, token: body.data.token };
}

/** A platform authenticator in this page's browser that keeps passkeys and verifies its user. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

async function signInWithPassword(page: Page, email: string): Promise<void> {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

async function signOut(page: Page): Promise<void> {
  await page.getByTestId('sidebar').getByRole('button', { name: 'Sign Out' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

/** Adds a passkey named `name` in Settings → Security (the password asked again first). */
async function addPasskey(page: Page, name: string): Promise<void> {
  await page.goto(`${origin}/settings?section=security`);
  const card = page.getByTestId('passkeys');
  await expect(card.getByText('No passkeys yet.')).toBeVisible();
  await card.getByRole('button', { name: 'Add a passkey' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a passkey' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Your password').fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await expect(card.getByText(`"${name}" is added. You can now sign in with it.`)).toBeVisible();
  const row = card.getByTestId('passkey-row');
  await expect(row.getByRole('heading', { name })).toBeVisible();
  await expect(row).toContainText('Last usedNever');
}

test('a passkey added in Settings signs in with no e-mail address typed', async ({ page }) => {
  const { email } = await account();
  const { cdp, authenticatorId } = await virtualAuthenticator(page);
  await signInWithPassword(page, email);
  await expect(page).toHaveURL(/\/medications$/);
  await addPasskey(page, 'This laptop');
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]?.isResidentCredential, 'a discoverable passkey').toBe(true);
  expect(credentials[0]?.rpId).toBe('localhost');

  await signOut(page);
  await expect(page.getByLabel('Email')).toHaveValue('');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page).toHaveURL(/\/medications$/);
  await expect(page.getByTestId('user-email')).toHaveText(email);

  // The server noted the use.
  await page.goto(`${origin}/settings?section=security`);
  const row = page.getByTestId('passkeys').getByTestId('passkey-row');
  await expect(row.getByRole('heading', { name: 'This laptop' })).toBeVisible();
  await expect(row).not.toContainText('Last usedNever');
  const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(after.credentials[0]?.signCount).toBeGreaterThan(0);
});

test('without a passkey in the browser, the sign-in page says so and stays', async ({ page }) => {
  // An authenticator that holds nothing for this server: the browser's request fails.
  await virtualAuthenticator(page);
  await page.goto(`${origin}/login`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'No passkey was used: the request was cancelled or timed out. Try again when your device is ready.',
    { timeout: 15_000 },
  );
  await expect(page).toHaveURL(/\/login$/);
});

test('with two-factor on, the passkey is the second step after the password', async ({ page }) => {
  const { email, token } = await account();
  const { cdp, authenticatorId } = await virtualAuthenticator(page);
  await signInWithPassword(page, email);
  await expect(page).toHaveURL(/\/medications$/);
  await addPasskey(page, 'Phone');

  // Two-factor with an authenticator app, turned on through the API.
  const setup = await fetch(`${origin}/api/auth/2fa/setup-totp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ password: PASSWORD }),
  });
  expect(setup.status).toBe(200);
  const { data } = (await setup.json()) as { data: { secret: string } };
  const complete = await fetch(`${origin}/api/auth/2fa/complete-totp-setup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ otp: totp(data.secret, stepAt(Date.now())) }),
  });
  expect(complete.status, await complete.clone().text()).toBe(200);

  // Turning two-factor on signed this page's session out.
  await page.goto(`${origin}/login`);
  await page.evaluate(() => localStorage.clear());
  await signInWithPassword(page, email);
  await expect(page.getByRole('heading', { name: 'Two-factor authentication' })).toBeVisible();
  await expect(page.getByText('Or confirm with one of your passkeys.')).toBeVisible();
  await page.getByRole('button', { name: 'Use a passkey instead' }).click();
  await expect(page).toHaveURL(/\/medications$/);
  await expect(page.getByTestId('user-email')).toHaveText(email);
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials[0]?.signCount).toBeGreaterThan(0);
  expect(log).toContain('second factor: a passkey');
});

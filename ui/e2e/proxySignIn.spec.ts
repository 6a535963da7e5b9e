import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';

/**
 * Behind an authenticating proxy: Debian's caddy checks the person's password itself
 * (`basicauth`) and names them to a Pillbox of this spec's own in `Remote-User`. The app opened
 * through caddy starts signed in; signing out says the proxy signs in again, and it does.
 */

const ANN = { email: 'ann@example.com', password: 'ann-at-caddy' };

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

function started(name: string, child: ChildProcess, log: () => string, url: string): Promise<void> {
  return expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${log()}`);
        return fetch(url).then((r) => r.status, () => 0);
      },
      { message: `${name} answers ${url}`, timeout: 30_000, intervals: [100] },
    )
    .not.toBe(0);
}

async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

/** caddy's home and data in `home`: it writes nothing of the runner's. */
function caddyEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
}

/** The bcrypt hash caddy's `basicauth` wants, made by caddy itself. */
function caddyHash(password: string, home: string): string {
  try {
    return execFileSync('caddy', ['hash-password', '--plaintext', password], { env: caddyEnv(home) })
      .toString()
      .trim();
  } catch (error) {
    throw new Error(`this spec needs Debian's caddy (apt-get install -y caddy; tests/run-all.sh installs it): ${String(error)}`);
  }
}

let dir = '';
let pillbox: ChildProcess | null = null;
let proxy: ChildProcess | null = null;
let proxyUrl = '';
let logs = '';

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pillbox-e2e-proxy-'));
  const binary = process.env.PILLBOX_BIN ?? '../target/release/pillbox';
  const [pillboxPort, proxyPort] = [await freePort(), await freePort()];
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PILLBOX_')));
  const dataDir = join(dir, 'data');
  const env = {
    ...inherited,
    PILLBOX_DATA_DIR: dataDir,
    PILLBOX_AUTH_PROXY_HEADER: 'Remote-User',
    PILLBOX_AUTH_TRUSTED_PROXIES: '127.0.0.1',
  };
  // Ann's account, made by the operator; the proxy's password is not Pillbox's.
  execFileSync(binary, ['create-user', '--email', ANN.email, '--password-stdin'], {
    env,
    input: 'a-pillbox-password\n',
  });
  pillbox = spawn(binary, ['serve', '--bind', `127.0.0.1:${pillboxPort}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  pillbox.stderr?.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  await started('pillbox', pillbox, () => logs, `http://127.0.0.1:${pillboxPort}/health`);

  const hash = caddyHash(ANN.password, dir);
  proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const caddyfile = join(dir, 'Caddyfile');
  writeFileSync(
    caddyfile,
    `{\n\tadmin off\n\tauto_https off\n\tservers {\n\t\tprotocols h1\n\t}\n}\n` +
      `${proxyUrl} {\n\tbasicauth {\n\t\t${ANN.email} ${hash}\n\t}\n` +
      `\treverse_proxy 127.0.0.1:${pillboxPort} {\n\t\theader_up Remote-User {http.auth.user.id}\n\t}\n}\n`,
  );
  proxy = spawn('caddy', ['run', '--adapter', 'caddyfile', '--config', caddyfile], {
    env: caddyEnv(dir),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proxy.stderr?.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  await started('caddy', proxy, () => logs, `${proxyUrl}/health`);
});

test.afterAll(async () => {
  if (proxy) await stopped(proxy);
  if (pillbox) await stopped(pillbox);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.use({ httpCredentials: { username: ANN.email, password: ANN.password } });

test('through the proxy the app starts signed in, and signing out says the proxy signs in again', async ({ page }) => {
  await page.goto(`${proxyUrl}/today`);
  await expect(page.getByRole('heading', { name: 'Today', level: 1 })).toBeVisible();
  await expect(page.getByTestId('user-email')).toHaveText(ANN.email);
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

  await page.getByRole('button', { name: 'Sign Out' }).click();
  await expect(page).toHaveURL(`${proxyUrl}/login`);
  await expect(page.getByRole('status')).toHaveText(
    'You are signed out of Pillbox. Your sign-in proxy signs you in again the next time you open or reload Pillbox; ' +
      'to sign out everywhere, also sign out of the proxy (for example your Authelia or Authentik portal).',
  );

  // And it does: opening Pillbox again through the proxy is signed in at once.
  await page.goto(`${proxyUrl}/medications`);
  await expect(page.getByTestId('user-email')).toHaveText(ANN.email);
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

const port = Number(process.env.PILLBOX_E2E_PORT ?? 3911);
const binary = process.env.PILLBOX_BIN ?? '../target/release/pillbox';
// The config is evaluated again in each worker; the environment carries the first choice
// over, so the whole run shares one fresh data directory.
process.env.E2E_PILLBOX_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'pillbox-e2e-'));
const dataDir = process.env.E2E_PILLBOX_DATA_DIR;
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: './e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  timeout: 30_000,
  expect: { timeout: 5_000 },
  use: {
    browserName: 'chromium',
    baseURL,
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    // `env -u`: the runner's own PILLBOX_* variables are not server settings.
    command: `env -u PILLBOX_BIN -u PILLBOX_E2E_PORT ${binary} serve --bind 127.0.0.1:${port} --data-dir ${dataDir}`,
    url: `${baseURL}/health`,
    reuseExistingServer: false,
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      // The shell tests register their own accounts.
      PILLBOX_SIGNUPS: 'open',
      PILLBOX_LOG_LEVEL: process.env.PILLBOX_LOG_LEVEL ?? 'warn',
    },
  },
});

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test as base } from './fixtures';

/**
 * Tests that read days and hours (today, tomorrow, a date N days on, a time zone's offset)
 * run against a Pillbox of their own whose clock starts at a fixed instant
 * (`PILLBOX_TEST_CLOCK_START`, debug builds), with the browser's clock installed at the same
 * instant, so that what they expect is written out, not worked out from the hour they run at.
 *
 * A server per test, not one for the run: the server's clock runs on from its start, so one
 * started with the run would be however many minutes past the instant the run had taken to
 * reach a test. Started for the test (about half a second), it reads the instant to within
 * that half second when the test begins, and every test starts from an empty database.
 *
 * The instant is late on New Year's Eve, so "tomorrow" is another month and another year, and
 * after the real time, because the push service double checks the server's VAPID expiry
 * against its own (real) clock.
 */
export const FIXED_START = '2035-12-31T22:30:00.000Z';

/** Set by playwright.config.ts: how to start a fixed-time server. */
interface FixedTimeServerSettings {
  binary: string;
  port: number;
  botToken: string;
  env: Record<string, string>;
}

function settings(): FixedTimeServerSettings {
  const text = process.env.E2E_FIXED_TIME_SERVER;
  if (!text) throw new Error('E2E_FIXED_TIME_SERVER is not set: run the tests through playwright.config.ts');
  return JSON.parse(text) as FixedTimeServerSettings;
}

/** The fixed-time servers' Telegram bot (a bot of its own, so the main server never reads its updates). */
export const FIXED_TIME_BOT_TOKEN = settings().botToken;

async function stopped(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGTERM');
  const killed = setTimeout(() => server.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killed);
}

// The fixtures' second parameter is Playwright's `use`, named `provide` here so that the React
// hooks lint rule does not take it for React's `use`.
export const test = base.extend<{ startsAt: string; serverEnv: Record<string, string>; fixedTimeServer: string }>({
  /** The instant the server's and the browser's clocks start at. */
  startsAt: [FIXED_START, { option: true }],

  /** Settings of this server beyond the shared ones (PILLBOX_* variables). */
  serverEnv: [{}, { option: true }],

  /** The fixed-time server's address, started for the test and stopped after it. */
  fixedTimeServer: async ({ startsAt, serverEnv }, provide, testInfo) => {
    const { binary, port, env } = settings();
    const dataDir = mkdtempSync(join(tmpdir(), 'pillbox-e2e-fixed-time-'));
    const url = `http://127.0.0.1:${port}`;
    // The runner's own PILLBOX_* variables are not this server's settings.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PILLBOX_')));
    const server = spawn(binary, ['serve', '--bind', `127.0.0.1:${port}`, '--data-dir', dataDir], {
      cwd: dirname(testInfo.config.configFile ?? '.'),
      env: { ...inherited, ...env, ...serverEnv, PILLBOX_TEST_CLOCK_START: startsAt },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await expect
        .poll(
          async () => {
            if (server.exitCode !== null) throw new Error(`the fixed-time server exited (${server.exitCode}):\n${output}`);
            return fetch(`${url}/health`).then((r) => r.status, () => 0);
          },
          { message: 'the fixed-time server answers /health', timeout: 30_000, intervals: [50] },
        )
        .toBe(200);
      // A release build ignores the start: say so rather than fail on a wrong date later.
      const moved = await fetch(`${url}/api/test/clock`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ advance_seconds: 0 }),
      });
      expect(moved.status, 'the fixed-time tests need a debug build of Pillbox (its test clock)').toBe(200);
      const { now } = ((await moved.json()) as { data: { now: string } }).data;
      const ahead = Date.parse(now) - Date.parse(startsAt);
      expect(ahead >= 0 && ahead < 30_000, `the server's clock reads ${now}, not ${startsAt}`).toBe(true);
      await provide(url);
    } finally {
      await stopped(server);
      if (testInfo.status !== testInfo.expectedStatus) await testInfo.attach('fixed-time server log', { body: output });
      rmSync(dataDir, { recursive: true, force: true });
    }
  },

  // The page and the API requests go to the fixed-time server.
  baseURL: async ({ fixedTimeServer }, provide) => {
    await provide(fixedTimeServer);
  },

  // The browser's clock starts at the same instant (and runs on, as the server's does).
  page: async ({ page, startsAt }, provide) => {
    await page.clock.install({ time: new Date(startsAt) });
    await provide(page);
  },
});

export { expect };

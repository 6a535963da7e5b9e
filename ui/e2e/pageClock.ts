import type { Page } from '@playwright/test';

/**
 * Runs the page's timers `ms` ahead at once, then lets React render what they changed, so
 * that a check right after sees everything those timers did without waiting in real time.
 * The page's clock must have been installed (`page.clock.install()`) before it loaded.
 */
export async function runTimersFor(page: Page, ms: number): Promise<void> {
  await page.clock.runFor(Math.max(0, Math.ceil(ms)));
  // React renders a timer's state change, and runs the effects of that render, in tasks
  // of their own posted through a MessageChannel (which the fake clock leaves alone):
  // tasks posted after them run after them.
  for (let round = 0; round < 3; round += 1) {
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => resolve();
          channel.port2.postMessage(null);
        }),
    );
  }
}

/** The page's time now (its installed clock's, which runTimersFor moves). */
export async function pageNow(page: Page): Promise<number> {
  return page.evaluate(() => Date.now());
}

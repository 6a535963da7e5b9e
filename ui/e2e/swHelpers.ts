import type { CDPSession, Page } from '@playwright/test';

/** The service worker's notifications and DevTools push, shared by the push specs. */

export interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  data: unknown;
  actions: { action: string; title: string }[];
}

/** The id Chromium gives the page's service worker registration (for DevTools push). */
export async function registrationId(cdp: CDPSession, scopeURL: string): Promise<string> {
  const found = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const match = registrations.find((r) => r.scopeURL === scopeURL && !r.isDeleted);
      if (match) resolve(match.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  return found;
}

/** The notifications the service worker shows now. */
export async function shownNotifications(page: Page): Promise<ShownNotification[]> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const notifications = await registration.getNotifications();
    return notifications.map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data as unknown,
      actions: [...((n as Notification & { actions?: { action: string; title: string }[] }).actions ?? [])].map(
        ({ action, title }) => ({ action, title }),
      ),
    }));
  });
}

/**
 * Waits until the page's service worker is activated: `ready` resolves while it may still be
 * activating, and a push delivered then can be dropped.
 */
export async function workerActivated(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const worker = registration.active;
    if (!worker || worker.state === 'activated') return;
    await new Promise<void>((resolve) => {
      worker.addEventListener('statechange', () => {
        if (worker.state === 'activated') resolve();
      });
    });
  });
}

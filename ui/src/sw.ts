/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: Array<string | { url: string; revision: string | null }>;
};

const APP_NAME = 'Pillbox';
const DEFAULT_URL = '/today';

// The app shell and its hashed assets work offline.
cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);

// Every in-app navigation gets index.html; the server's own paths never do.
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('/index.html'), {
    denylist: [/^\/api\//, /^\/health(?:\/|$)/, /^\/migrations\//],
  }),
);

// The app's reads work offline from the last answer: network first, and the copy (marked
// with a header the page shows an offline notice for) only when the network fails. Take
// links, exports and backups are never kept. The page deletes this cache at sign-out.
const API_CACHE = 'pillbox-api';
const OFFLINE_HEADER = 'X-Pillbox-Offline';
const NEVER_CACHED = [/^\/api\/notifications\/take\//, /^\/api\/export/, /^\/api\/backups/, /^\/api\/auth\/(?!me$)/];

async function networkFirst(request: Request): Promise<Response> {
  const cache = await caches.open(API_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    // The server refused the session: its data must not be shown from here either.
    if (response.status === 401) await caches.delete(API_CACHE);
    return response;
  } catch (error) {
    const cached = await cache.match(request);
    if (!cached) throw error;
    const headers = new Headers(cached.headers);
    headers.set(OFFLINE_HEADER, '1');
    return new Response(cached.body, { status: cached.status, statusText: cached.statusText, headers });
  }
}

registerRoute(
  ({ url, request }) =>
    request.method === 'GET' &&
    url.origin === self.location.origin &&
    url.pathname.startsWith('/api/') &&
    !NEVER_CACHED.some((pattern) => pattern.test(url.pathname)),
  ({ request }) => networkFirst(request),
);

self.addEventListener('install', () => {
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

interface ReminderPayload {
  title: string;
  body: string;
  url?: string;
  takeUrl?: string;
  /** The Take action's label in the person's language (the server sends it). */
  takeLabel?: string;
  tag?: string;
  /** The person's sound and vibration preferences. */
  silent?: boolean;
  vibrate?: boolean;
}

interface NotificationData {
  url: string;
  takeUrl?: string;
}

// NotificationOptions in the TypeScript DOM lib lacks `actions`, which only workers may use.
interface ReminderNotificationOptions extends NotificationOptions {
  actions?: Array<{ action: string; title: string }>;
  vibrate?: number[];
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Reads the push message; anything that is not our JSON still becomes a notification. */
function readPayload(data: PushMessageData | null): ReminderPayload {
  if (!data) return { title: APP_NAME, body: '' };
  const text = data.text();
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
    const fields = parsed as Record<string, unknown>;
    return {
      title: optionalString(fields.title) ?? APP_NAME,
      body: typeof fields.body === 'string' ? fields.body : '',
      url: optionalString(fields.url),
      takeUrl: optionalString(fields.takeUrl),
      takeLabel: optionalString(fields.takeLabel),
      tag: optionalString(fields.tag),
      silent: fields.silent === true,
      vibrate: fields.vibrate !== false,
    };
  } catch {
    return { title: APP_NAME, body: text };
  }
}

self.addEventListener('push', (event) => {
  const payload = readPayload(event.data);
  const data: NotificationData = { url: payload.url ?? DEFAULT_URL, takeUrl: payload.takeUrl };
  const options: ReminderNotificationOptions = {
    body: payload.body,
    icon: '/pwa-192x192.png',
    badge: '/pwa-192x192.png',
    data,
  };
  if (payload.tag) options.tag = payload.tag;
  if (payload.silent) options.silent = true;
  if (payload.vibrate && !payload.silent) options.vibrate = [200, 100, 200];
  if (payload.takeUrl) options.actions = [{ action: 'take', title: payload.takeLabel ?? 'Take' }];
  event.waitUntil(self.registration.showNotification(payload.title, options));
});

function readNotificationData(value: unknown): NotificationData {
  if (typeof value !== 'object' || value === null) return { url: DEFAULT_URL };
  const fields = value as Record<string, unknown>;
  return { url: optionalString(fields.url) ?? DEFAULT_URL, takeUrl: optionalString(fields.takeUrl) };
}

/** Focuses an open Pillbox window and shows `url` in it, or opens a new one. */
async function focusOrOpen(url: string): Promise<void> {
  const target = new URL(url, self.location.origin);
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const existing = windows.find((client) => new URL(client.url).origin === self.location.origin);
  if (existing) {
    const focused = await existing.focus();
    try {
      await focused.navigate(target.href);
      return;
    } catch {
      // An uncontrolled window cannot be navigated from here; open a fresh one instead.
    }
  }
  await self.clients.openWindow(target.href);
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = readNotificationData(event.notification.data);
  if (event.action === 'take' && data.takeUrl) {
    event.waitUntil(self.clients.openWindow(new URL(data.takeUrl, self.location.origin).href));
    return;
  }
  event.waitUntil(focusOrOpen(data.url));
});

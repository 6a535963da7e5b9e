/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import createClient from 'openapi-fetch';
import { TAKE_PATH } from './api/paths';
import type { paths } from './api/schema';
import {
  APP_NAME,
  DEFAULT_URL,
  REMINDER_ACTIONS,
  actionBody,
  actionButtons,
  outcomeText,
  pickLanguage,
  readPayload,
  withdrawnText,
  type ReminderAction,
  type ReminderPayload,
  type SwLanguage,
  type WithdrawPayload,
} from './swMessages';

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: Array<string | { url: string; revision: string | null }>;
};


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

// The app's language, as the page last said it (the worker keeps no state between wake-ups).
const SETTINGS_CACHE = 'pillbox-sw-settings';
const LANGUAGE_KEY = '/__pillbox/language';

self.addEventListener('message', (event) => {
  const message: unknown = event.data;
  if (typeof message !== 'object' || message === null) return;
  const { type, language } = message as Record<string, unknown>;
  if (type !== 'language' || typeof language !== 'string') return;
  event.waitUntil(caches.open(SETTINGS_CACHE).then((cache) => cache.put(LANGUAGE_KEY, new Response(language))));
});

async function appLanguage(): Promise<SwLanguage> {
  let stored: string | null = null;
  try {
    const response = await (await caches.open(SETTINGS_CACHE)).match(LANGUAGE_KEY);
    stored = response ? await response.text() : null;
  } catch {
    // No cache storage: the browser's language will do.
  }
  return pickLanguage(stored, self.navigator.language);
}

interface NotificationData {
  url: string;
  takeUrl?: string;
  /** The take link's token: the actions post with it. */
  token?: string;
}

// NotificationOptions in the TypeScript DOM lib lacks `actions`, which only workers may use.
interface ReminderNotificationOptions extends NotificationOptions {
  actions?: Array<{ action: string; title: string }>;
  vibrate?: number[];
}

/** How many buttons a notification may have here (Chrome: 2); all of ours where unknown. */
function maxActions(): number {
  const limit: unknown = (Notification as unknown as { maxActions?: unknown }).maxActions;
  return typeof limit === 'number' && limit > 0 ? limit : REMINDER_ACTIONS.length;
}

async function showReminder(payload: ReminderPayload): Promise<void> {
  const data: NotificationData = { url: payload.url ?? DEFAULT_URL, takeUrl: payload.takeUrl };
  if (payload.token) data.token = payload.token;
  const options: ReminderNotificationOptions = {
    body: payload.body,
    icon: '/pwa-192x192.png',
    badge: '/pwa-192x192.png',
    data,
  };
  if (payload.tag) options.tag = payload.tag;
  if (payload.silent) options.silent = true;
  if (payload.vibrate && !payload.silent) options.vibrate = [200, 100, 200];
  const actions = actionButtons(payload, await appLanguage(), maxActions());
  if (actions.length > 0) options.actions = actions;
  await self.registration.showNotification(payload.title, options);
}

/**
 * A reminder answered on another device: its notifications here close. Browsers expect a
 * push to show something (Chrome shows its own "This site has been updated in the
 * background" once a site has pushed silently too often; Safari may end the subscription),
 * so when nothing else of ours stays on screen a quiet notice with the same tag says what
 * happened instead; when another notification stays, nothing new is shown.
 */
async function withdraw(payload: WithdrawPayload): Promise<void> {
  const tagged = await self.registration.getNotifications({ tag: payload.tag });
  const title = tagged[0]?.title ?? APP_NAME;
  for (const notification of tagged) notification.close();
  const others = (await self.registration.getNotifications()).filter((n) => n.tag !== payload.tag);
  if (others.length > 0) return;
  await self.registration.showNotification(title, {
    body: withdrawnText(payload.outcome, await appLanguage()),
    icon: '/pwa-192x192.png',
    badge: '/pwa-192x192.png',
    tag: payload.tag,
    silent: true,
    data: { url: DEFAULT_URL } satisfies NotificationData,
  });
}

self.addEventListener('push', (event) => {
  const payload = readPayload(event.data ? event.data.text() : null);
  event.waitUntil(payload.kind === 'withdraw' ? withdraw(payload) : showReminder(payload));
});

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function readNotificationData(value: unknown): NotificationData {
  if (typeof value !== 'object' || value === null) return { url: DEFAULT_URL };
  const fields = value as Record<string, unknown>;
  return {
    url: optionalString(fields.url) ?? DEFAULT_URL,
    takeUrl: optionalString(fields.takeUrl),
    token: optionalString(fields.token),
  };
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

/**
 * The take link's calls, typed by the API document and with the app's path builder
 * (openapi-fetch's, which api/http.ts's client uses too). Not that client itself: it reads
 * the page's base address and session, which a worker has not; a take link needs neither.
 */
const takeApi = createClient<paths>({ baseUrl: self.location.origin });

/**
 * Take, Snooze or Skip from the notification, without opening a window: the take link
 * records it and the reminder's notification is replaced by the outcome. When that fails
 * (offline, handled already, expired) the take page opens and shows why.
 */
async function answer(action: ReminderAction, title: string, tag: string, data: NotificationData): Promise<void> {
  const token = data.token ?? '';
  const takePage = data.takeUrl ?? `/notifications/take/${encodeURIComponent(token)}`;
  let snoozedUntil: string | null = null;
  try {
    const { data: answered, response } = await takeApi.POST(TAKE_PATH, {
      params: { path: { token } },
      body: actionBody(action),
    });
    if (!answered) throw new Error(`take link answered ${response.status}`);
    snoozedUntil = 'snoozed_until' in answered.data ? answered.data.snoozed_until : null;
  } catch {
    await self.clients.openWindow(new URL(takePage, self.location.origin).href);
    return;
  }
  const options: NotificationOptions = {
    body: outcomeText(action, await appLanguage(), snoozedUntil),
    icon: '/pwa-192x192.png',
    badge: '/pwa-192x192.png',
    silent: true,
    data: { url: data.url } satisfies NotificationData,
  };
  if (tag) options.tag = tag;
  await self.registration.showNotification(title, options);
}

self.addEventListener('notificationclick', (event) => {
  const { notification } = event;
  notification.close();
  const data = readNotificationData(notification.data);
  const action = REMINDER_ACTIONS.find((candidate) => candidate === event.action);
  if (action && data.token) {
    event.waitUntil(answer(action, notification.title, notification.tag, data));
    return;
  }
  if (event.action === 'take' && data.takeUrl) {
    event.waitUntil(self.clients.openWindow(new URL(data.takeUrl, self.location.origin).href));
    return;
  }
  event.waitUntil(focusOrOpen(data.url));
});

// The browser's side of Web Push (SPEC §4 "Push permission"): whether it can have a
// subscription, the permission, the service worker's push manager. Subscribing and
// unsubscribing, which keep the server in step, are queries/push.ts's.

/** The push service errors of SPEC §8, as a key the page translates. */
export const PUSH_PROBLEMS = {
  notSupported: 'Notifications not supported',
  noServiceWorker: 'Service worker not registered',
  noPublicKey: 'VAPID public key not configured on this server',
  permissionDenied: 'Notification permission denied',
  permissionNotGranted: 'Notification permission not granted',
} as const;
export type PushProblem = keyof typeof PUSH_PROBLEMS;

export class PushError extends Error {
  readonly problem: PushProblem;

  constructor(problem: PushProblem) {
    super(PUSH_PROBLEMS[problem]);
    this.name = 'PushError';
    this.problem = problem;
  }
}

export type Permission = NotificationPermission | 'unsupported';

/** The browser's notification permission, or 'unsupported' without the Notification API. */
export function currentPermission(): Permission {
  return 'Notification' in window ? Notification.permission : 'unsupported';
}

/** SPEC §4: granted is Enabled, denied is Blocked, anything else Not Set. */
export function permissionBadge(permission: Permission): 'enabled' | 'blocked' | 'notSet' {
  if (permission === 'granted') return 'enabled';
  if (permission === 'denied') return 'blocked';
  return 'notSet';
}

/**
 * Whether push can work here: 'homeScreen' on an iPhone or iPad outside the installed app
 * (Safari offers push only there), 'unsupported' for a browser or an insecure (http) page
 * without the APIs.
 */
export type PushSupport = 'supported' | 'homeScreen' | 'unsupported';

export function pushSupport(): PushSupport {
  if ('Notification' in window && 'serviceWorker' in navigator && 'PushManager' in window) return 'supported';
  const apple = /iPad|iPhone|iPod/.test(navigator.userAgent) || (/Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints > 1);
  const standalone =
    (typeof window.matchMedia === 'function' && window.matchMedia('(display-mode: standalone)').matches) ||
    (navigator as Navigator & { standalone?: boolean }).standalone === true;
  return apple && !standalone ? 'homeScreen' : 'unsupported';
}

/** A base64url VAPID key as the bytes `pushManager.subscribe` wants. */
export function urlBase64ToUint8Array(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = (base64url + '='.repeat((4 - (base64url.length % 4)) % 4)).replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** How long subscribing waits for the app's service worker to register after the page loads. */
export const WORKER_WAIT_MS = 5000;

/** The app's service worker, waiting up to `waitMs` for it to register; null without one. */
export async function workerRegistration(waitMs: number): Promise<ServiceWorkerRegistration | null> {
  if (!('serviceWorker' in navigator)) return null;
  const found = await navigator.serviceWorker.getRegistration();
  if (found || waitMs <= 0) return found ?? null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), waitMs);
  });
  try {
    return await Promise.race([navigator.serviceWorker.ready, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** This browser's push subscription, or null (also when push is not available). */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (pushSupport() !== 'supported') return null;
  const registration = await workerRegistration(0);
  return registration ? registration.pushManager.getSubscription() : null;
}

/**
 * Asks for the notification permission. Older Safari answers through a callback rather than
 * a promise, and a prompt closed without a choice answers 'default'.
 */
export function askPermission(): Promise<NotificationPermission> {
  return new Promise((resolve) => {
    const answer = Notification.requestPermission(resolve) as Promise<NotificationPermission> | undefined;
    if (answer) answer.then(resolve, () => resolve(Notification.permission));
  });
}

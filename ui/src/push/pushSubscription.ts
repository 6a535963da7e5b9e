// This browser's Web Push subscription (SPEC §4 "Push permission"): whether it can have one,
// subscribing with the server's VAPID key and registering it, unsubscribing.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { getPushPublicKey, getPushStatus, registerPushSubscription, unregisterPushSubscription } from '../api/notifications';
import { pushDevicesChanged } from '../queries/invalidate';

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

async function workerRegistration(waitMs: number): Promise<ServiceWorkerRegistration | null> {
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

/**
 * Subscribes this browser and registers the subscription with the server. Throws PushError
 * for the push service errors, ApiError when the server refuses the subscription.
 * `onAsking` is called when the browser's permission prompt is about to show.
 */
export async function subscribeToPush(waitMs = WORKER_WAIT_MS, onAsking?: () => void): Promise<PushSubscription> {
  if (pushSupport() !== 'supported') throw new PushError('notSupported');
  const registration = await workerRegistration(waitMs);
  if (!registration) throw new PushError('noServiceWorker');
  const publicKey = await getPushPublicKey();
  if (publicKey === '') throw new PushError('noPublicKey');

  if (Notification.permission !== 'granted') onAsking?.();
  const permission = Notification.permission === 'granted' ? 'granted' : await askPermission();
  if (permission === 'denied') throw new PushError('permissionDenied');
  if (permission !== 'granted') throw new PushError('permissionNotGranted');

  const existing = await registration.pushManager.getSubscription();
  const subscription =
    existing ??
    (await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: urlBase64ToUint8Array(publicKey),
    }));
  try {
    await registerPushSubscription(subscription.toJSON(), navigator.userAgent);
  } catch (error) {
    // A subscription the server does not know would never receive anything.
    if (!existing) await subscription.unsubscribe().catch(() => false);
    throw error;
  }
  return subscription;
}

/** Removes this browser's subscription from the server, then from the browser. */
export async function unsubscribeFromPush(): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  await unregisterPushSubscription(subscription.endpoint);
  await subscription.unsubscribe();
}

/**
 * Whether this device takes the person's reminders: the browser holds a subscription, the
 * notification permission is granted, and the server sends to that subscription. `stale`
 * when the browser holds one the server does not know (removed elsewhere, or after a push
 * service called it gone). Without an answer from the server the browser's word stands.
 */
export async function deviceSubscription(): Promise<{ subscribed: boolean; stale: boolean; devices: number | null }> {
  const subscription = await currentSubscription();
  if (!subscription) return { subscribed: false, stale: false, devices: null };
  const granted = currentPermission() === 'granted';
  try {
    const status = await getPushStatus(subscription.endpoint);
    return { subscribed: status.registered && granted, stale: !status.registered, devices: status.devices };
  } catch (caught) {
    console.warn('Could not ask the server about this push subscription', caught);
    return { subscribed: granted, stale: false, devices: null };
  }
}

export interface PushState {
  support: PushSupport;
  permission: Permission;
  /** null while this browser's subscription is being looked up. */
  subscribed: boolean | null;
  /** The browser holds a subscription the server does not send to. */
  stale: boolean;
  /** How many devices take the person's reminders (null when unknown). */
  devices: number | null;
  busy: boolean;
  /**
   * The browser's permission prompt is up. The toggle stays usable meanwhile: a prompt that
   * is dismissed without an answer (some browsers then never answer) must not lock it.
   */
  asking: boolean;
  /** What went wrong with the last toggle. */
  error: unknown;
  toggle: () => Promise<void>;
}

/** The push card's state: permission, subscription, and a toggle between the two states. */
export function usePushSubscription(): PushState {
  const [support] = useState(pushSupport);
  const [permission, setPermission] = useState(currentPermission);
  const [subscribed, setSubscribed] = useState<boolean | null>(null);
  const [stale, setStale] = useState(false);
  const [devices, setDevices] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // Each toggle's number: the answer of a prompt given up on is ignored.
  const attempt = useRef(0);

  useEffect(() => {
    let current = true;
    deviceSubscription()
      .then((found) => {
        if (!current) return;
        setSubscribed(found.subscribed);
        setStale(found.stale);
        setDevices(found.devices);
      })
      .catch((caught: unknown) => {
        console.warn('Could not read the push subscription', caught);
        if (current) setSubscribed(false);
      });
    return () => {
      current = false;
    };
  }, []);

  // The person may allow or block notifications in the browser while the page is open.
  useEffect(() => {
    if (support !== 'supported' || !('permissions' in navigator)) return;
    let live = true;
    let status: PermissionStatus | null = null;
    const update = () => setPermission(currentPermission());
    navigator.permissions
      .query({ name: 'notifications' })
      .then((found) => {
        if (!live) return;
        status = found;
        found.addEventListener('change', update);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      status?.removeEventListener('change', update);
    };
  }, [support]);

  const toggle = useCallback(async () => {
    const mine = ++attempt.current;
    const current = () => attempt.current === mine;
    if (asking) {
      // Toggled again while the prompt had no answer: give up on it, push stays off.
      setAsking(false);
      setBusy(false);
      setSubscribed(false);
      setPermission(currentPermission());
      setError(new PushError('permissionNotGranted'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      if (subscribed) {
        await unsubscribeFromPush();
        if (current()) setSubscribed(false);
      } else {
        await subscribeToPush(WORKER_WAIT_MS, () => {
          if (!current()) return;
          setAsking(true);
          setBusy(false);
        });
        if (current()) {
          setSubscribed(true);
          setStale(false);
        }
      }
      pushDevicesChanged(client);
      const found = await deviceSubscription();
      if (current()) setDevices(found.devices);
    } catch (caught) {
      if (current()) {
        setError(caught);
        if (!subscribed) setSubscribed(false);
      }
    } finally {
      if (current()) {
        setPermission(currentPermission());
        setAsking(false);
        setBusy(false);
      }
    }
  }, [subscribed, asking, client]);

  return { support, permission, subscribed, stale, devices, busy, asking, error, toggle };
}

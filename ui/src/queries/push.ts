// This browser's Web Push subscription and the server in step (SPEC §4 "Push permission"):
// subscribing with the server's VAPID key and registering it, unsubscribing, and whether the
// server still sends to it. The browser's own side is push/pushSubscription.ts.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { getPushPublicKey, getPushStatus, registerPushSubscription, unregisterPushSubscription } from '../api/notifications';
import {
  askPermission,
  currentPermission,
  currentSubscription,
  PushError,
  pushSupport,
  urlBase64ToUint8Array,
  WORKER_WAIT_MS,
  workerRegistration,
  type Permission,
  type PushSupport,
} from '../push/pushSubscription';
import { pushDevicesChanged } from './invalidate';

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

// A fake Web Push environment for tests: the Notification API, PushManager and a service
// worker registration whose pushManager keeps one subscription.
import { vi } from 'vitest';

export const ENDPOINT = 'https://fcm.googleapis.com/fcm/send/browser-1';
/** 65 bytes, as a P-256 public key is, in base64url. */
export const PUBLIC_KEY = 'BAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0-P0A';

export interface FakePushOptions {
  permission?: NotificationPermission;
  /** What requestPermission answers (and the permission becomes). */
  answer?: NotificationPermission;
  subscribed?: boolean;
  /** Whether the app's service worker is registered. */
  registered?: boolean;
}

export function fakeSubscription(endpoint = ENDPOINT) {
  return {
    endpoint,
    toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh: 'p256dh-key', auth: 'auth-secret' } }),
    unsubscribe: vi.fn(() => Promise.resolve(true)),
  };
}
export type FakeSubscription = ReturnType<typeof fakeSubscription>;

/** Installs the fake APIs on window and navigator; `remove()` takes the navigator part away. */
export function installFakePush(options: FakePushOptions = {}) {
  const state: { permission: NotificationPermission; subscription: FakeSubscription | null } = {
    permission: options.permission ?? 'default',
    subscription: options.subscribed ? fakeSubscription() : null,
  };

  const requestPermission = vi.fn(() => {
    state.permission = options.answer ?? 'granted';
    return Promise.resolve(state.permission);
  });
  const FakeNotification = {
    get permission(): NotificationPermission {
      return state.permission;
    },
    requestPermission,
  };

  const pushManager = {
    getSubscription: vi.fn(() => Promise.resolve(state.subscription)),
    subscribe: vi.fn<(options: PushSubscriptionOptionsInit) => Promise<FakeSubscription>>(() => {
      state.subscription = fakeSubscription();
      return Promise.resolve(state.subscription);
    }),
  };
  const registration = { pushManager } as unknown as ServiceWorkerRegistration;
  const registered = options.registered ?? true;
  const serviceWorker = {
    getRegistration: vi.fn(() => Promise.resolve(registered ? registration : undefined)),
    ready: registered ? Promise.resolve(registration) : new Promise<ServiceWorkerRegistration>(() => undefined),
  };

  vi.stubGlobal('Notification', FakeNotification);
  vi.stubGlobal('PushManager', function PushManager() {
    throw new TypeError('Illegal constructor');
  });
  Object.defineProperty(navigator, 'serviceWorker', { value: serviceWorker, configurable: true });

  return {
    state,
    requestPermission,
    pushManager,
    serviceWorker,
    remove: () => Reflect.deleteProperty(navigator, 'serviceWorker'),
  };
}

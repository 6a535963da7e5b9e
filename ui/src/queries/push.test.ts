import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { PushError, currentSubscription, urlBase64ToUint8Array } from '../push/pushSubscription';
import { jsonResponse, mockFetch, requestUrl, sentJson } from '../test/fetchMock';
import { ENDPOINT, PUBLIC_KEY, installFakePush } from '../test/push';
import { subscribeToPush, unsubscribeFromPush } from './push';

let remove: (() => boolean) | null = null;

function fakePush(options: Parameters<typeof installFakePush>[0] = {}) {
  const fake = installFakePush(options);
  remove = fake.remove;
  return fake;
}

function pushServer(publicKey = PUBLIC_KEY, register = () => jsonResponse({ success: true }, 201)) {
  return mockFetch({
    'GET /api/notifications/push/public-key': () => jsonResponse({ success: true, data: { publicKey } }),
    'POST /api/notifications/push/register': register,
    'POST /api/notifications/push/unregister': () => jsonResponse({ success: true, message: 'Push subscription removed' }),
  });
}

function calls(fetchMock: ReturnType<typeof mockFetch>, path: string) {
  return fetchMock.mock.calls.filter(([input]) => new URL(requestUrl(input), 'http://x').pathname === path);
}

async function problemOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PushError) return error.problem;
    throw error;
  }
  throw new Error('no error');
}

afterEach(() => {
  remove?.();
  remove = null;
});

describe('subscribeToPush', () => {
  it('asks for permission, subscribes with the server key and registers the subscription', async () => {
    const fake = fakePush();
    const fetchMock = pushServer();
    const subscription = await subscribeToPush();

    expect(fake.requestPermission).toHaveBeenCalledTimes(1);
    expect(fake.pushManager.subscribe).toHaveBeenCalledTimes(1);
    const options = fake.pushManager.subscribe.mock.calls[0]?.[0];
    expect(options?.userVisibleOnly).toBe(true);
    expect(options?.applicationServerKey).toEqual(urlBase64ToUint8Array(PUBLIC_KEY));
    const [register] = calls(fetchMock, '/api/notifications/push/register');
    expect(register?.[1]?.method).toBe('POST');
    expect(sentJson(register?.[1])).toEqual({
      subscription: { endpoint: ENDPOINT, expirationTime: null, keys: { p256dh: 'p256dh-key', auth: 'auth-secret' } },
      userAgent: navigator.userAgent,
    });
    expect(subscription.endpoint).toBe(ENDPOINT);
    expect(await currentSubscription()).not.toBeNull();
  });

  it('registers an existing subscription again instead of making a new one', async () => {
    const fake = fakePush({ subscribed: true, permission: 'granted' });
    const fetchMock = pushServer();
    await subscribeToPush();
    expect(fake.pushManager.subscribe).not.toHaveBeenCalled();
    expect(calls(fetchMock, '/api/notifications/push/register')).toHaveLength(1);
  });

  it('needs notification support', async () => {
    pushServer();
    expect(await problemOf(subscribeToPush())).toBe('notSupported');
  });

  it('needs a registered service worker', async () => {
    fakePush({ registered: false });
    const fetchMock = pushServer();
    expect(await problemOf(subscribeToPush(20))).toBe('noServiceWorker');
    expect(calls(fetchMock, '/api/notifications/push/register')).toHaveLength(0);
  });

  it('needs the server public key', async () => {
    const fake = fakePush();
    pushServer('');
    expect(await problemOf(subscribeToPush())).toBe('noPublicKey');
    expect(fake.requestPermission).not.toHaveBeenCalled();
  });

  it('stops when permission is denied or not granted', async () => {
    let fake = fakePush({ answer: 'denied' });
    pushServer();
    expect(await problemOf(subscribeToPush())).toBe('permissionDenied');
    expect(fake.pushManager.subscribe).not.toHaveBeenCalled();
    fake.remove();

    fake = fakePush({ answer: 'default' });
    expect(await problemOf(subscribeToPush())).toBe('permissionNotGranted');
    expect(fake.pushManager.subscribe).not.toHaveBeenCalled();
  });

  it('undoes a new subscription the server refuses', async () => {
    const fake = fakePush();
    pushServer(PUBLIC_KEY, () => jsonResponse({ success: false, code: 'push_service_not_allowed', message: 'This push service is not allowed' }, 400));
    const error = await subscribeToPush().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('This push service is not allowed');
    const created = fake.pushManager.subscribe.mock.results[0]?.value as Promise<{ unsubscribe: () => void }>;
    expect((await created).unsubscribe).toHaveBeenCalledTimes(1);
  });
});

describe('unsubscribeFromPush', () => {
  it('removes the endpoint from the server and the browser', async () => {
    const fake = fakePush({ subscribed: true, permission: 'granted' });
    const subscription = fake.state.subscription;
    const fetchMock = pushServer();
    await unsubscribeFromPush();
    const [unregister] = calls(fetchMock, '/api/notifications/push/unregister');
    expect(sentJson(unregister?.[1])).toEqual({ endpoint: ENDPOINT });
    expect(subscription?.unsubscribe).toHaveBeenCalledTimes(1);
  });

  it('does nothing without a subscription', async () => {
    fakePush();
    const fetchMock = pushServer();
    await unsubscribeFromPush();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

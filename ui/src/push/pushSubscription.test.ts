import { afterEach, describe, expect, it } from 'vitest';
import en from '../i18n/notify/en.json';
import { PUBLIC_KEY, installFakePush } from '../test/push';
import {
  PUSH_PROBLEMS,
  PushError,
  currentPermission,
  permissionBadge,
  pushSupport,
  urlBase64ToUint8Array,
} from './pushSubscription';

let remove: (() => boolean) | null = null;

function fakePush(options: Parameters<typeof installFakePush>[0] = {}) {
  const fake = installFakePush(options);
  remove = fake.remove;
  return fake;
}

afterEach(() => {
  remove?.();
  remove = null;
});

describe('push permission and support', () => {
  it('shows granted as Enabled, denied as Blocked, anything else as Not Set', () => {
    expect(permissionBadge('granted')).toBe('enabled');
    expect(permissionBadge('denied')).toBe('blocked');
    expect(permissionBadge('default')).toBe('notSet');
    expect(permissionBadge('unsupported')).toBe('notSet');
  });

  it('reads the permission, and knows when the APIs are missing', () => {
    expect(currentPermission()).toBe('unsupported');
    expect(pushSupport()).toBe('unsupported');
    fakePush({ permission: 'denied' });
    expect(currentPermission()).toBe('denied');
    expect(pushSupport()).toBe('supported');
  });

  it('decodes a base64url VAPID key', () => {
    const bytes = urlBase64ToUint8Array(PUBLIC_KEY);
    expect(bytes).toHaveLength(65);
    expect(bytes[0]).toBe(4);
    expect(bytes[62]).toBe(62);
    expect(bytes[63]).toBe(63);
    expect(Array.from(urlBase64ToUint8Array('-_8'))).toEqual([0xfb, 0xff]);
  });

  it('keeps the English texts of the push service errors', () => {
    for (const [problem, message] of Object.entries(PUSH_PROBLEMS)) {
      expect(en.push.errors[problem as keyof typeof PUSH_PROBLEMS]).toBe(message);
      expect(new PushError(problem as keyof typeof PUSH_PROBLEMS).message).toBe(message);
    }
  });
});

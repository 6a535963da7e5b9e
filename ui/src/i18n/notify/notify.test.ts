import { describe, expect, it } from 'vitest';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fr from './fr.json';

type Tree = { [key: string]: string | Tree };

const PLURAL = /_(zero|one|two|few|many|other)$/;

function flatten(tree: Tree, prefix = ''): Record<string, string> {
  return Object.entries(tree).reduce<Record<string, string>>((flat, [key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return typeof value === 'string' ? { ...flat, [path]: value } : { ...flat, ...flatten(value, path) };
  }, {});
}

/** Keys without their plural endings: languages have different plural forms. */
function baseKeys(flat: Record<string, string>): string[] {
  return [...new Set(Object.keys(flat).map((key) => key.replace(PLURAL, '')))].sort();
}

const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();

describe('notification screen translations', () => {
  const english = flatten(en);
  const locales = [
    ['es', es],
    ['fr', fr],
    ['de', de],
  ] as const;

  it('English has texts, none empty', () => {
    expect(Object.keys(english).length).toBeGreaterThan(50);
    expect(Object.values(english).filter((text) => text.trim() === '')).toEqual([]);
  });

  it.each(locales)('%s has exactly the English keys, none empty', (_language, locale) => {
    const translated = flatten(locale);
    expect(baseKeys(translated)).toEqual(baseKeys(english));
    expect(Object.values(translated).filter((text) => text.trim() === '')).toEqual([]);
  });

  it.each(locales)('%s uses the same placeholders as English', (_language, locale) => {
    const translated = flatten(locale);
    for (const [key, text] of Object.entries(translated)) {
      const englishText = english[key] ?? english[key.replace(PLURAL, '_other')] ?? '';
      expect(placeholders(text), key).toEqual(key.endsWith('_one') ? placeholders(text) : placeholders(englishText));
    }
  });

  it.each(locales)('%s is translated, not copied from English', (_language, locale) => {
    const translated = flatten(locale);
    // Words that are the same in every language ("Push", "Test") aside, most texts differ.
    const copied = Object.keys(english).filter((key) => translated[key] === english[key]);
    expect(copied.length).toBeLessThanOrEqual(3);
  });

  it('keeps the spec texts in English', () => {
    expect(english['take.invalidTitle']).toBe('Invalid Link');
    expect(english['take.goHome']).toBe('Go Home');
    expect(english['take.asPrescribed']).toBe('As prescribed');
    expect(english['take.cancel']).toBe('Cancel');
    expect(english['take.submit.taken']).toBe('Log as Taken');
    expect(english['take.submit.skipped']).toBe('Log as Skipped');
    expect(english['take.submit.missed']).toBe('Log as Missed');
    expect(english['take.success.taken']).toBe('Medication taken logged successfully!');
    expect(english['take.success.skipped']).toBe('Medication skipped logged successfully!');
    expect(english['take.success.missed']).toBe('Medication missed logged successfully!');
    expect(english['errors.invalidToken']).toBe('Invalid or expired token');
    expect(english['errors.loadDetails']).toBe('Failed to load notification details');
    expect(english['errors.logDose']).toBe('Failed to log medication');
    expect(english['errors.notificationNotFound']).toBe('Notification not found');
    expect(english['push.permission.enabled']).toBe('Enabled');
    expect(english['push.permission.blocked']).toBe('Blocked');
    expect(english['push.permission.notSet']).toBe('Not Set');
    expect(english['push.subscribed']).toBe('Subscribed');
    expect(english['push.blockedAlert']).toBe(
      'Push notifications are blocked. Please enable them in your browser settings.',
    );
    expect(english['push.errors.toggle']).toBe('Failed to toggle push notifications');
    expect(english['push.errors.notSupported']).toBe('Notifications not supported');
    expect(english['push.errors.noServiceWorker']).toBe('Service worker not registered');
    expect(english['push.errors.noPublicKey']).toMatch(/^VAPID public key not configured/);
    expect(english['push.errors.permissionDenied']).toBe('Notification permission denied');
    expect(english['push.errors.permissionNotGranted']).toBe('Notification permission not granted');
    expect(english['general.configure']).toBe('Configure');
    expect(english['test.button']).toBe('Send Test Notification');
    expect(english['test.sent']).toBe('Test notification sent!');
    expect(english['test.failed']).toBe('Failed to send test notification. Make sure notifications are enabled.');
  });
});

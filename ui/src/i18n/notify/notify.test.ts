import { describe, expect, it } from 'vitest';
import { checkTranslations } from '../../test/translations';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fr from './fr.json';

const english = checkTranslations('notification screen', { en, es, fr, de }, { minEnglishTexts: 50, maxCopied: 3 });

describe('notification screen texts', () => {
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

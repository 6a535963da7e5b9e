import { describe, expect, it } from 'vitest';
import { checkTranslations } from '../../test/translations';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fr from './fr.json';

const english = checkTranslations('notification preferences', { en, es, fr, de }, { plurals: true });

describe('notification preferences texts', () => {
  it('keeps the spec texts in English', () => {
    expect(english['dialog.save']).toBe('Save Settings');
    expect(english['dialog.test']).toBe('Test Notification');
    expect(english['dialog.cancel']).toBe('Cancel');
    expect(english['dialog.titleFor']).toBe('Notification Settings for {{name}}');
    expect(english['dialog.saved']).toBe('Preferences saved successfully!');
    expect(english['dialog.testSent']).toBe('Test notification sent!');
    expect(english['errors.load']).toBe('Failed to load preferences');
    expect(english['errors.save']).toBe('Failed to save preferences');
    expect(english['errors.test']).toBe('Failed to send test notification');
    expect(english['settings.updated']).toBe('Notification settings updated successfully');
    expect(english['settings.updateFailed']).toBe('Failed to update notification settings');
    expect(english['settings.loadFailed']).toBe('Failed to load settings');
  });
});

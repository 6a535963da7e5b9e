import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, loadSettings, sanitizeSettings } from './appSettings';

describe('app settings', () => {
  it('has the spec defaults', () => {
    expect(loadSettings()).toEqual({
      language: 'en',
      timezone: 'UTC',
      dateFormat: 'MM/dd/yyyy',
      timeFormat: '12h',
      defaultReminderTime: '09:00',
      autoBackup: true,
      dataRetention: 365,
      theme: 'system',
    });
  });

  it('keeps valid stored values and drops invalid ones', () => {
    expect(
      sanitizeSettings({ timeFormat: '24h', dataRetention: 0, theme: 'purple', language: 'xx' }),
    ).toEqual({ ...DEFAULT_SETTINGS, timeFormat: '24h', dataRetention: 0 });
  });
});

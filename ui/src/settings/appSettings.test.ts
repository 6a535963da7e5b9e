import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_SETTINGS,
  SETTINGS_STORAGE_KEY,
  browserLanguage,
  loadSettings,
  sanitizeSettings,
  saveSettings,
} from './appSettings';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('app settings', () => {
  it('has the spec defaults, with dates and times as the language writes them', () => {
    expect(loadSettings()).toEqual({
      language: 'en',
      languageChosen: false,
      timezone: 'UTC',
      dateFormat: 'auto',
      timeFormat: 'auto',
      defaultReminderTime: '09:00',
      autoBackup: true,
      dataRetention: 365,
      theme: 'system',
    });
  });

  it('keeps valid stored values and drops invalid ones', () => {
    expect(
      sanitizeSettings({ timeFormat: '24h', dataRetention: 0, theme: 'purple', language: 'xx' }, ['en-US']),
    ).toEqual({ ...DEFAULT_SETTINGS, timeFormat: '24h', dataRetention: 0 });
  });

  it('keeps a format chosen earlier', () => {
    expect(sanitizeSettings({ dateFormat: 'MM/dd/yyyy', timeFormat: '12h' }, ['de-DE'])).toMatchObject({
      dateFormat: 'MM/dd/yyyy',
      timeFormat: '12h',
    });
  });
});

describe('the language before anyone chose one', () => {
  it("is the browser's first language that Pillbox speaks", () => {
    expect(browserLanguage(['de-DE', 'en-US'])).toBe('de');
    expect(browserLanguage(['pt-BR', 'fr-CA', 'es'])).toBe('fr');
    expect(browserLanguage(['ES'])).toBe('es');
    expect(browserLanguage(['zh-Hans-CN', 'ja'])).toBe('en');
    expect(browserLanguage([])).toBe('en');
  });

  it('follows navigator.languages when nothing is stored', () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['fr-FR', 'fr', 'en']);
    expect(loadSettings()).toMatchObject({ language: 'fr', languageChosen: false });
  });

  it('gives way to a language the person chose', () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['de-DE']);
    localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify({ language: 'es' }));
    expect(loadSettings()).toMatchObject({ language: 'es', languageChosen: true });
  });

  it('is not stored, so it keeps following the browser when other settings are saved', () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['de-DE']);
    saveSettings({ ...loadSettings(), theme: 'dark' });
    const stored = JSON.parse(localStorage.getItem(SETTINGS_STORAGE_KEY) ?? '{}') as Record<string, unknown>;
    expect(stored).toMatchObject({ theme: 'dark' });
    expect(stored).not.toHaveProperty('language');
    expect(stored).not.toHaveProperty('languageChosen');

    saveSettings({ ...loadSettings(), language: 'fr', languageChosen: true });
    expect(JSON.parse(localStorage.getItem(SETTINGS_STORAGE_KEY) ?? '{}')).toMatchObject({ language: 'fr' });
    expect(loadSettings()).toMatchObject({ language: 'fr', languageChosen: true, theme: 'dark' });
  });
});

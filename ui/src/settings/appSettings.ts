export const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
export const THEMES = ['light', 'dark', 'system'] as const;
export const TIME_FORMATS = ['12h', '24h'] as const;
export const DATE_FORMATS = ['MM/dd/yyyy', 'dd/MM/yyyy', 'yyyy-MM-dd'] as const;
export const DATA_RETENTION_DAYS = [30, 90, 365, 730, 0] as const;

export type Language = (typeof LANGUAGES)[number];
export type Theme = (typeof THEMES)[number];
export type TimeFormat = (typeof TIME_FORMATS)[number];
export type DateFormat = (typeof DATE_FORMATS)[number];

/** Appearance and data preferences kept in the browser (spec §3, "Local app settings"). */
export interface AppSettings {
  language: Language;
  timezone: string;
  dateFormat: DateFormat;
  timeFormat: TimeFormat;
  defaultReminderTime: string;
  autoBackup: boolean;
  dataRetention: number;
  theme: Theme;
}

export const SETTINGS_STORAGE_KEY = 'dosage_app_settings';

export const DEFAULT_SETTINGS: AppSettings = {
  language: 'en',
  timezone: 'UTC',
  dateFormat: 'MM/dd/yyyy',
  timeFormat: '12h',
  defaultReminderTime: '09:00',
  autoBackup: true,
  dataRetention: 365,
  theme: 'system',
};

function oneOf<T extends string | number>(allowed: readonly T[], value: unknown, fallback: T): T {
  return allowed.find((candidate) => candidate === value) ?? fallback;
}

/** Merges whatever was stored over the defaults, keeping only values of the right kind. */
export function sanitizeSettings(stored: unknown): AppSettings {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    return { ...DEFAULT_SETTINGS };
  }
  const s = stored as Record<string, unknown>;
  const d = DEFAULT_SETTINGS;
  return {
    language: oneOf(LANGUAGES, s.language, d.language),
    timezone: typeof s.timezone === 'string' && s.timezone !== '' ? s.timezone : d.timezone,
    dateFormat: oneOf(DATE_FORMATS, s.dateFormat, d.dateFormat),
    timeFormat: oneOf(TIME_FORMATS, s.timeFormat, d.timeFormat),
    defaultReminderTime:
      typeof s.defaultReminderTime === 'string' && /^\d{2}:\d{2}$/.test(s.defaultReminderTime)
        ? s.defaultReminderTime
        : d.defaultReminderTime,
    autoBackup: typeof s.autoBackup === 'boolean' ? s.autoBackup : d.autoBackup,
    dataRetention: oneOf(DATA_RETENTION_DAYS, s.dataRetention, d.dataRetention),
    theme: oneOf(THEMES, s.theme, d.theme),
  };
}

export function loadSettings(): AppSettings {
  try {
    const raw = localStorage.getItem(SETTINGS_STORAGE_KEY);
    return sanitizeSettings(raw === null ? null : JSON.parse(raw));
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function saveSettings(settings: AppSettings): void {
  try {
    localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(settings));
  } catch {
    // Unavailable storage: the settings still apply for this page.
  }
}

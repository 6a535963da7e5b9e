export const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
export const THEMES = ['light', 'dark', 'system'] as const;
/** `auto`: as the language writes times and dates (en: 8:00 AM, 11/26/2026; de: 08:00, 26.11.2026). */
export const TIME_FORMATS = ['auto', '12h', '24h'] as const;
export const DATE_FORMATS = ['auto', 'MM/dd/yyyy', 'dd/MM/yyyy', 'yyyy-MM-dd'] as const;
export const DATA_RETENTION_DAYS = [30, 90, 365, 730, 0] as const;

export type Language = (typeof LANGUAGES)[number];
export type Theme = (typeof THEMES)[number];
export type TimeFormat = (typeof TIME_FORMATS)[number];
export type DateFormat = (typeof DATE_FORMATS)[number];
/** How long history is kept, in days (0: all of it). */
export type RetentionDays = (typeof DATA_RETENTION_DAYS)[number];

/** Appearance and data preferences kept in the browser (spec §3, "Local app settings"). */
export interface AppSettings {
  language: Language;
  /**
   * Whether the language was chosen (in Settings, or the account's from the server). Until
   * then the browser's languages decide it, and it is not stored.
   */
  languageChosen: boolean;
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
  languageChosen: false,
  timezone: 'UTC',
  dateFormat: 'auto',
  timeFormat: 'auto',
  defaultReminderTime: '09:00',
  autoBackup: true,
  dataRetention: 365,
  theme: 'system',
};

function oneOf<T extends string | number>(allowed: readonly T[], value: unknown, fallback: T): T {
  return allowed.find((candidate) => candidate === value) ?? fallback;
}

/** `value` as one of the languages Pillbox speaks, if it is one. */
export function languageOf(value: unknown): Language | undefined {
  return LANGUAGES.find((language) => language === value);
}

/** The first of the browser's languages (most wanted first) that Pillbox speaks; English otherwise. */
export function browserLanguage(wanted: readonly string[]): Language {
  for (const tag of wanted) {
    const primary = tag.split(/[-_]/)[0]?.toLowerCase();
    const found = languageOf(primary);
    if (found) return found;
  }
  return 'en';
}

/** What the browser says the person reads, most wanted first. */
function navigatorLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  // Older browsers (and some test set-ups) have no list, only the one language.
  if ((navigator.languages as readonly string[] | undefined)?.length) return navigator.languages;
  return navigator.language ? [navigator.language] : [];
}

/**
 * Merges whatever was stored over the defaults, keeping only values of the right kind. Without
 * a stored language, the browser's (`wanted`, most wanted first) decides.
 */
export function sanitizeSettings(stored: unknown, wanted: readonly string[] = navigatorLanguages()): AppSettings {
  const detected = { ...DEFAULT_SETTINGS, language: browserLanguage(wanted) };
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    return detected;
  }
  const s = stored as Record<string, unknown>;
  const d = detected;
  const chosenLanguage = languageOf(s.language);
  return {
    language: chosenLanguage ?? d.language,
    languageChosen: chosenLanguage !== undefined,
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
    return sanitizeSettings(null);
  }
}

/** Keeps the settings; a language the browser chose is left out, so it keeps following the browser. */
export function saveSettings(settings: AppSettings): void {
  const { language, languageChosen, ...rest } = settings;
  const stored = languageChosen ? { language, ...rest } : rest;
  try {
    localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(stored));
  } catch {
    // Unavailable storage: the settings still apply for this page.
  }
}

import i18n, { type BackendModule, type ResourceKey } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, loadSettings, type Language } from '../settings/appSettings';
import englishShell from './locales/en.json';

/** Each language's name in that language, for the language picker. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  es: 'Español',
  fr: 'Français',
  de: 'Deutsch',
};

/** The app's namespaces and the folder of each one's `{en,es,fr,de}.json`. */
const NAMESPACE_FOLDERS = {
  translation: 'locales',
  meds: 'medications',
  notify: 'notify',
  notifyPrefs: 'notifyPrefs',
  data: 'data',
  circle: 'circle',
  // Settings → Security's cards of passkeys, API tokens and linked sign-ins: with Settings,
  // not in the shell every first screen downloads.
  security: 'security',
  // A medication's prescription (its form section and its card's line): with the Medications
  // screen, not with Today.
  prescriptions: 'prescriptions',
} as const;

export type Namespace = keyof typeof NAMESPACE_FOLDERS;
export const NAMESPACES = Object.keys(NAMESPACE_FOLDERS) as Namespace[];

// One chunk per language and namespace, fetched when a screen first needs it: a person
// downloads the texts of their own language (and English, the fallback), never all four.
const LOADERS = import.meta.glob<ResourceKey>(
  [
    './locales/*.json',
    '!./locales/en.json',
    './medications/*.json',
    './notify/*.json',
    './notifyPrefs/*.json',
    './data/*.json',
    './circle/*.json',
    './security/*.json',
    './prescriptions/*.json',
  ],
  { import: 'default' },
);

/** One namespace's texts in one language. */
export function loadTexts(language: Language, namespace: Namespace): Promise<ResourceKey> {
  if (language === 'en' && namespace === 'translation') return Promise.resolve(englishShell);
  const load = LOADERS[`./${NAMESPACE_FOLDERS[namespace]}/${language}.json`];
  return load ? load() : Promise.reject(new Error(`no texts for ${language}/${namespace}`));
}

const textsOnDemand: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, namespace, callback) {
    const known = LANGUAGES.find((candidate) => candidate === language);
    const folder = NAMESPACES.find((candidate) => candidate === namespace);
    if (!known || !folder) {
      callback(new Error(`no texts for ${language}/${namespace}`), false);
      return;
    }
    loadTexts(known, folder).then(
      (texts) => callback(null, texts),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), false),
    );
  },
};

void i18n
  .use(textsOnDemand)
  .use(initReactI18next)
  .init({
    // English is every language's fallback, so its shell texts are always needed: they come
    // with the app's code, and the first screen of an English visit waits for no other file.
    resources: { en: { translation: englishShell } },
    partialBundledLanguages: true,
    // The language chosen, else the browser's first that Pillbox speaks (see loadSettings).
    lng: loadSettings().language,
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    // Only the shell's texts at start; a screen's own namespaces load with it (useTranslation
    // suspends the screen until they are there, so no key is ever shown in place of a text).
    ns: ['translation'],
    interpolation: { escapeValue: false },
    initAsync: false,
    returnNull: false,
    react: { useSuspense: true },
  });

/**
 * Loads a language's texts, or those of the namespaces given, and only then answers: a
 * language picked in Settings changes the screen once its texts are there (i18next's
 * changeLanguage also waits for them), and a route can fetch its texts with its code.
 */
export function loadNamespaces(namespaces: readonly Namespace[]): Promise<void> {
  return i18n.loadNamespaces([...namespaces]);
}

export default i18n;

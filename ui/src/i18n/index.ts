import { NAMESPACE_FOLDERS, type Namespace } from '../firstScreens';
import { languageOf, loadSettings, type Language } from '../settings/appSettings';
import englishShell from './locales/en.json';

export type { Namespace };

/** Each language's name in that language, for the language picker. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  es: 'Español',
  fr: 'Français',
  de: 'Deutsch',
};

/** One namespace's texts: keys (nested by `.`) to texts, a plural's forms as `key_one`, `key_other`, …. */
export interface Texts {
  [key: string]: string | Texts;
}

export const NAMESPACES = Object.keys(NAMESPACE_FOLDERS) as Namespace[];

// One chunk per language and namespace, fetched when a screen first needs it: a person
// downloads the texts of their own language (and English, the fallback), never all four.
const LOADERS = import.meta.glob<Texts>(
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
export function loadTexts(language: Language, namespace: Namespace): Promise<Texts> {
  if (language === 'en' && namespace === 'translation') return Promise.resolve(englishShell);
  const load = LOADERS[`./${NAMESPACE_FOLDERS[namespace]}/${language}.json`];
  return load ? load() : Promise.reject(new Error(`no texts for ${language}/${namespace}`));
}

/** What a text is filled in with: `{{name}}` takes `name`'s value; a number `count` picks the plural form. */
export type TextOptions = Record<string, unknown> & { count?: number };

/**
 * A namespace's texts in the current language: `t('key')`, `t('key', { count: 2, name })`, or
 * `t('other:key')` for another namespace's. A text the language lacks is English's; a key no
 * language has is shown as itself (a test then fails on it, not on a blank).
 */
export type TFunction = (key: string, options?: TextOptions) => string;

const ENGLISH: Language = 'en';
/** English is every language's fallback, so its shell texts come with the app's code. */
const texts: Partial<Record<Language, Partial<Record<Namespace, Texts>>>> = { en: { translation: englishShell } };
/** The loads under way, by language and namespace; one that failed is forgotten and tried again when next asked for. */
const loading = new Map<string, Promise<void>>();
/** A namespace whose texts could not be fetched: shown in English (or as keys) rather than never. */
const failed = new Set<string>();

const pluralRules = new Map<Language, Intl.PluralRules>();
function pluralForm(language: Language, count: number): string {
  let rules = pluralRules.get(language);
  if (!rules) {
    rules = new Intl.PluralRules(language);
    pluralRules.set(language, rules);
  }
  return rules.select(count);
}

function lookup(language: Language, namespace: Namespace, key: string): string | undefined {
  let node: string | Texts | undefined = texts[language]?.[namespace];
  for (const part of key.split('.')) {
    if (node === undefined || typeof node === 'string') return undefined;
    node = node[part];
  }
  return typeof node === 'string' ? node : undefined;
}

function fillIn(text: string, options: TextOptions | undefined): string {
  if (!options) return text;
  return text.replace(/\{\{(.+?)\}\}/g, (_, name: string) => {
    let value: unknown = options;
    for (const part of name.replace(/^-/, '').trim().split('.')) {
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
    }
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  });
}

function isNamespace(value: string): value is Namespace {
  return NAMESPACES.some((namespace) => namespace === value);
}

/** The languages a text is looked up in, in order: the one given, then English. */
function languagesFor(language: Language): Language[] {
  return language === ENGLISH ? [ENGLISH] : [language, ENGLISH];
}

function translate(language: Language, namespace: Namespace, fullKey: string, options?: TextOptions): string {
  const colon = fullKey.indexOf(':');
  const prefix = colon > 0 ? fullKey.slice(0, colon) : '';
  const ownNamespace = isNamespace(prefix) ? prefix : namespace;
  const key = isNamespace(prefix) ? fullKey.slice(colon + 1) : fullKey;
  const count = options?.count;
  for (const candidate of languagesFor(language)) {
    const keys = typeof count === 'number' ? [`${key}_${pluralForm(candidate, count)}`, key] : [key];
    if (count === 0) keys.unshift(`${key}_zero`);
    for (const variant of keys) {
      const found = lookup(candidate, ownNamespace, variant);
      if (found !== undefined) return fillIn(found, options);
    }
  }
  return key;
}

const slot = (language: Language, namespace: Namespace) => `${language}|${namespace}`;

/** Whether a namespace's texts are in for `language` and its fallback (or could not be had). */
function settled(language: Language, namespace: Namespace): boolean {
  return languagesFor(language).every(
    (candidate) => texts[candidate]?.[namespace] !== undefined || failed.has(slot(candidate, namespace)),
  );
}

type Listener = () => void;
const listeners = new Set<Listener>();
const languageListeners = new Set<(language: Language) => void>();
/** Tells the components: a language was switched, or texts arrived (or could not be had). */
function changed(): void {
  for (const listener of [...listeners]) listener();
}

function load(language: Language, namespace: Namespace): Promise<void> {
  if (texts[language]?.[namespace] !== undefined) return Promise.resolve();
  const key = slot(language, namespace);
  let pending = loading.get(key);
  if (!pending) {
    // A retry of one that failed leaves it failed until it has an answer: the screens showing
    // its English stand-in keep showing it, rather than waiting again.
    pending = loadTexts(language, namespace).then(
      (loaded) => {
        (texts[language] ??= {})[namespace] = loaded;
        failed.delete(key);
        loading.delete(key);
        changed();
      },
      () => {
        failed.add(key);
        loading.delete(key);
        changed();
      },
    );
    loading.set(key, pending);
  }
  return pending;
}

/** The namespaces some screen has asked for so far: a language switched to loads them all first. */
const wanted = new Set<Namespace>(['translation']);

function loadAll(languages: readonly Language[], namespaces: Iterable<Namespace>): Promise<void> {
  const loads: Promise<void>[] = [];
  for (const namespace of namespaces) {
    wanted.add(namespace);
    for (const language of languages) for (const candidate of languagesFor(language)) loads.push(load(candidate, namespace));
  }
  return Promise.all(loads).then(() => undefined);
}

let current: Language = loadSettings().language;
/** How many language switches have been asked for: only the last one asked takes effect. */
let switches = 0;

/** The app's texts: the language shown, its switch, and the namespaces' texts fetched on demand. */
const i18n = {
  get language(): Language {
    return current;
  },
  /** A namespace's texts (the shell's unless named), in the language current when it is called. */
  getFixedT(language: string | null, namespace: Namespace = 'translation'): TFunction {
    const fixed = language === null ? null : (languageOf(language) ?? ENGLISH);
    return (key, options) => translate(fixed ?? current, namespace, key, options);
  },
  t(key: string, options?: TextOptions): string {
    return translate(current, 'translation', key, options);
  },
  /** Whether `namespace`'s texts can be shown in the current language now. */
  hasLoaded(namespace: Namespace): boolean {
    return settled(current, namespace);
  },
  /** Fetches the namespaces' texts in the current language (and English); resolves once they are in. */
  loadNamespaces(namespaces: Namespace | readonly Namespace[]): Promise<void> {
    return loadAll([current], typeof namespaces === 'string' ? [namespaces] : namespaces);
  },
  /** Fetches every namespace asked for so far in these languages too. */
  loadLanguages(languages: readonly Language[]): Promise<void> {
    return loadAll(languages, wanted);
  },
  /**
   * Switches the language once the texts of every namespace in use are there in it: the page
   * never shows keys, or English, in between. Unknown languages are refused.
   */
  async changeLanguage(language: string): Promise<TFunction> {
    const known = languageOf(language);
    if (!known) throw new Error(`Pillbox has no texts in ${language}`);
    const switchNumber = ++switches;
    if (![...wanted].every((namespace) => settled(known, namespace))) await loadAll([known], wanted);
    // A switch asked for later has won meanwhile (its texts were in sooner): it stays.
    if (switchNumber !== switches) return i18n.getFixedT(null);
    if (current !== known) {
      current = known;
      for (const listener of [...languageListeners]) listener(known);
      changed();
    }
    return i18n.getFixedT(null);
  },
  /** `listener` is told each new language once it is shown. */
  on(_event: 'languageChanged', listener: (language: Language) => void): void {
    languageListeners.add(listener);
  },
  off(_event: 'languageChanged', listener: (language: Language) => void): void {
    languageListeners.delete(listener);
  },
  /** For components: `listener` is called on every change a text may depend on; answers how to stop. */
  subscribe: (listener: Listener): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export type I18n = typeof i18n;

// The shell's texts in another language are fetched as the app's code starts, not once the
// first render asks for them.
if (current !== ENGLISH) void loadAll([current], ['translation']);

/**
 * Loads a language's texts, or those of the namespaces given, and only then answers: a
 * language picked in Settings changes the screen once its texts are there, and a route can
 * fetch its texts with its code.
 */
export function loadNamespaces(namespaces: readonly Namespace[]): Promise<void> {
  return i18n.loadNamespaces(namespaces);
}

export default i18n;

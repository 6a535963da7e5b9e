// The checks every translation namespace passes (used by its own test file): every language
// has the English keys (plural endings aside, as languages have different plural forms), no
// text is empty, each plural key has every form its language uses, the placeholders match
// English, and texts are translated rather than copied.
import { describe, expect, it } from 'vitest';

export type Tree = { [key: string]: string | Tree };

export interface Locales {
  en: Tree;
  es: Tree;
  fr: Tree;
  de: Tree;
}

export interface TranslationChecks {
  /** English must have more texts than this. */
  minEnglishTexts?: number;
  /** The namespace has plural keys (and must keep having some). */
  plurals?: boolean;
  /** At most this many texts may equal English ("Push", "Test"). */
  maxCopied?: number;
}

const PLURAL = /_(zero|one|two|few|many|other)$/;

export function flatten(tree: Tree, prefix = ''): Record<string, string> {
  return Object.entries(tree).reduce<Record<string, string>>((flat, [key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return typeof value === 'string' ? { ...flat, [path]: value } : { ...flat, ...flatten(value, path) };
  }, {});
}

function baseKeys(flat: Record<string, string>): string[] {
  return [...new Set(Object.keys(flat).map((key) => key.replace(PLURAL, '')))].sort();
}

const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();

const empty = (flat: Record<string, string>) => Object.values(flat).filter((text) => text.trim() === '');

/** Registers the shared checks for one namespace; returns its English texts by dotted key. */
export function checkTranslations(name: string, locales: Locales, checks: TranslationChecks = {}) {
  const english = flatten(locales.en);
  const others = [
    ['es', locales.es],
    ['fr', locales.fr],
    ['de', locales.de],
  ] as const;

  describe(`${name} translations`, () => {
    it('English has texts, none empty', () => {
      expect(Object.keys(english).length).toBeGreaterThan(checks.minEnglishTexts ?? 0);
      expect(empty(english)).toEqual([]);
    });

    it.each(others)('%s has exactly the English keys, none empty', (_language, locale) => {
      const translated = flatten(locale);
      expect(baseKeys(translated)).toEqual(baseKeys(english));
      expect(empty(translated)).toEqual([]);
    });

    if (checks.plurals) {
      it.each([['en', locales.en] as const, ...others])('%s has every plural form its language uses', (language, locale) => {
        const flat = flatten(locale);
        const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
        const plurals = [...new Set(Object.keys(flat).filter((k) => PLURAL.test(k)).map((k) => k.replace(PLURAL, '')))];
        expect(plurals.length).toBeGreaterThan(0);
        for (const key of plurals) {
          for (const category of categories) expect(flat, `${key}_${category}`).toHaveProperty([`${key}_${category}`]);
        }
      });
    }

    it.each(others)('%s uses the same placeholders as English', (_language, locale) => {
      const translated = flatten(locale);
      for (const [key, text] of Object.entries(translated)) {
        const englishText = english[key] ?? english[key.replace(PLURAL, '_other')] ?? '';
        // A "_one" form may say the number in words ("Once").
        expect(placeholders(text), key).toEqual(key.endsWith('_one') ? placeholders(text) : placeholders(englishText));
      }
    });

    if (checks.maxCopied !== undefined) {
      const maxCopied = checks.maxCopied;
      it.each(others)('%s is translated, not copied from English', (_language, locale) => {
        const translated = flatten(locale);
        // A pattern of placeholders and punctuation alone ("{{person}}: {{title}}") has no words to translate.
        const words = (text: string) => /\p{L}/u.test(text.replace(/{{\s*\w+\s*}}/g, ''));
        const copied = Object.keys(english).filter((key) => translated[key] === english[key] && words(english[key] ?? ''));
        expect(copied.length).toBeLessThanOrEqual(maxCopied);
      });
    }
  });

  return english;
}

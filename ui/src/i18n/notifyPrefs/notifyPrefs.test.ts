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

describe('notification preferences translations', () => {
  const english = flatten(en);
  const locales = [
    ['es', es],
    ['fr', fr],
    ['de', de],
  ] as const;

  it.each(locales)('%s has exactly the English keys, none empty', (_language, locale) => {
    const translated = flatten(locale);
    expect(baseKeys(translated)).toEqual(baseKeys(english));
    expect(Object.values(translated).filter((text) => text.trim() === '')).toEqual([]);
  });

  it('has no empty English text', () => {
    expect(Object.values(english).filter((text) => text.trim() === '')).toEqual([]);
  });

  it.each([['en', en] as const, ...locales])('%s has every plural form its language uses', (language, locale) => {
    const flat = flatten(locale);
    const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
    const plurals = [...new Set(Object.keys(flat).filter((k) => PLURAL.test(k)).map((k) => k.replace(PLURAL, '')))];
    expect(plurals.length).toBeGreaterThan(0);
    for (const key of plurals) {
      for (const category of categories) expect(flat, `${key}_${category}`).toHaveProperty([`${key}_${category}`]);
    }
  });

  it.each(locales)('%s uses the same placeholders as English', (_language, locale) => {
    const translated = flatten(locale);
    for (const [key, text] of Object.entries(translated)) {
      const englishText = english[key] ?? english[key.replace(PLURAL, '_other')] ?? '';
      // A "_one" form may say the number in words ("Once").
      expect(placeholders(text), key).toEqual(key.endsWith('_one') ? placeholders(text) : placeholders(englishText));
    }
  });

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

import { describe, expect, it } from 'vitest';
import de from './locales/de.json';
import en from './locales/en.json';
import es from './locales/es.json';
import fr from './locales/fr.json';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Record<string, string> {
  return Object.entries(tree).reduce<Record<string, string>>((flat, [key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return typeof value === 'string' ? { ...flat, [path]: value } : { ...flat, ...flatten(value, path) };
  }, {});
}

describe('translations', () => {
  const english = flatten(en);

  it.each([
    ['es', es],
    ['fr', fr],
    ['de', de],
  ])('%s has exactly the English keys, none empty', (_lang, locale) => {
    const translated = flatten(locale);
    expect(Object.keys(translated).sort()).toEqual(Object.keys(english).sort());
    expect(Object.values(translated).filter((text) => text.trim() === '')).toEqual([]);
  });

  it('keeps the install banner texts of the spec in English', () => {
    expect(english['install.title']).toBe('Install Pillbox');
    expect(english['install.description']).toBe(
      'Install our app for a better experience with offline access and quick access from your home screen',
    );
    expect(english['install.install']).toBe('Install App');
    expect(english['install.notNow']).toBe('Not now');
  });
});

// Across every namespace: the same keys in all four languages, one word per language for each
// dose outcome, and one form of address per language. A screen that says "Pris" where the next
// one says "Prise" makes a person wonder whether these are two different things.
import { describe, expect, it } from 'vitest';
import { flatten, type Tree } from '../test/translations';
import { loadTexts, NAMESPACES } from './index';
import swDe from './sw/de.json';
import swEn from './sw/en.json';
import swEs from './sw/es.json';
import swFr from './sw/fr.json';

type Language = 'en' | 'es' | 'fr' | 'de';
const LANGUAGES: Language[] = ['en', 'es', 'fr', 'de'];
const PLURAL = /_(zero|one|two|few|many|other)$/;

/** Every namespace of the app in every language, as the app fetches them. */
const RESOURCES = Object.fromEntries(
  await Promise.all(
    LANGUAGES.map(async (language) => {
      const trees = await Promise.all(NAMESPACES.map(async (namespace) => [namespace, await loadTexts(language, namespace)]));
      return [language, Object.fromEntries(trees) as Record<string, Tree>];
    }),
  ),
) as Record<Language, Record<string, Tree>>;

/** Every namespace's texts by "namespace:key", the service worker's included. */
function textsOf(language: Language): Record<string, string> {
  const namespaces: Record<string, Tree> = { ...RESOURCES[language], sw: { en: swEn, es: swEs, fr: swFr, de: swDe }[language] };
  return Object.fromEntries(
    Object.entries(namespaces).flatMap(([namespace, tree]) =>
      Object.entries(flatten(tree)).map(([key, text]) => [`${namespace}:${key}`, text]),
    ),
  );
}

const TEXTS = Object.fromEntries(LANGUAGES.map((language) => [language, textsOf(language)])) as Record<
  Language,
  Record<string, string>
>;

const baseKeys = (texts: Record<string, string>) =>
  [...new Set(Object.keys(texts).map((key) => key.replace(PLURAL, '')))].sort();

describe('every namespace', () => {
  it('is there in all four languages', () => {
    for (const language of LANGUAGES) {
      for (const namespace of NAMESPACES) expect(Object.keys(RESOURCES[language][namespace] ?? {}).length).toBeGreaterThan(0);
    }
  });

  it.each(LANGUAGES.filter((language) => language !== 'en'))('%s has every English key and no other', (language) => {
    expect(baseKeys(TEXTS[language])).toEqual(baseKeys(TEXTS.en));
  });
});

type Outcome = 'taken' | 'skipped' | 'missed';

/** The one word each language uses for each outcome of a dose. */
const WORDS: Record<Language, Record<Outcome, string>> = {
  en: { taken: 'taken', skipped: 'skipped', missed: 'missed' },
  de: { taken: 'genommen', skipped: 'ausgelassen', missed: 'verpasst' },
  fr: { taken: 'prise', skipped: 'sautée', missed: 'oubliée' },
  es: { taken: 'tomada', skipped: 'omitida', missed: 'olvidada' },
};

/**
 * Texts that name an outcome as a status ("Taken") or as what was logged ("Log as Taken"). The
 * other texts are held to the same words by NOT_USED below.
 */
const NAMING: Record<Outcome, string[]> = {
  taken: [
    'meds:status.taken',
    'meds:todaySchedule.status.taken',
    'meds:dose.submit.taken',
    'meds:history.markAs.taken',
    'notify:take.status.taken',
    'notify:take.submit.taken',
    'notify:take.logged.taken',
    'circle:take.handled.taken',
    'sw:taken',
    'sw:elsewhere.taken',
  ],
  skipped: [
    'meds:status.skipped',
    'meds:todaySchedule.status.skipped',
    'meds:dose.submit.skipped',
    'meds:history.markAs.skipped',
    'notify:take.status.skipped',
    'notify:take.submit.skipped',
    'notify:take.logged.skipped',
    'circle:take.handled.skipped',
    'sw:skipped',
    'sw:elsewhere.skipped',
  ],
  missed: [
    'meds:status.missed',
    'meds:todaySchedule.status.missed',
    'meds:dose.submit.missed',
    'meds:history.markAs.missed',
    'meds:rules.grace',
    'notify:take.status.missed',
    'notify:take.submit.missed',
    'notify:take.logged.missed',
    'sw:elsewhere.missed',
  ],
};

/** A whole word (letters with accents count as letters), any case. */
const word = (alternatives: string) => new RegExp(`(?<!\\p{L})(?:${alternatives})(?!\\p{L})`, 'iu');

/** Other words for the same outcomes, or another form of address, that crept in before. */
const NOT_USED: Record<Language, RegExp[]> = {
  en: [],
  // "Sie" throughout; "genommen", "verpasst".
  de: [word('eingenommen'), word('vergessenen? Dos\\p{L}*'), word('du|dich|dir|dein\\p{L}*'), /(?<!\p{L})Füge(?!\p{L})/u],
  // "vous" throughout; "prise" (never "Pris" as a status), "oubliée".
  fr: [/^Pris$/, word('manquée?s?'), word('tu|toi|ton|tes')],
  // "tú" throughout; "omitida" is skipped, "olvidada" missed.
  es: [word('saltad[oa]s?'), word('no tomad[oa]'), word('usted'), word('suscríbase|revóquela|compártala|copie|vea')],
};

const lowered = (text: string) => text.toLocaleLowerCase();

describe('one word per outcome of a dose', () => {
  for (const language of LANGUAGES) {
    for (const outcome of ['taken', 'skipped', 'missed'] as Outcome[]) {
      it(`${language}: "${WORDS[language][outcome]}" for ${outcome}, wherever it is named`, () => {
        const expected = WORDS[language][outcome];
        for (const key of NAMING[outcome]) {
          const text = TEXTS[language][key];
          expect(text, key).toBeDefined();
          expect(lowered(text ?? ''), key).toContain(expected.slice(0, -1));
          // The word itself, inflected at most ("Prises", "verpasste"), never "Pris" or "Oublié".
          expect(lowered(text ?? '').match(new RegExp(`${expected.slice(0, -1)}\\p{L}*`, 'u'))?.[0], key).toMatch(
            new RegExp(`^${expected}(s|e|en)?$`, 'u'),
          );
        }
      });
    }

    it(`${language}: no other word or form of address`, () => {
      const found = Object.entries(TEXTS[language]).filter(([, text]) => NOT_USED[language].some((re) => re.test(text)));
      expect(found).toEqual([]);
    });
  }
});

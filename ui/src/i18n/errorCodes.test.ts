// Every error code the server's OpenAPI document lists has a text in all four languages, in
// the main namespace (what every screen falls back to) or in the namespace of the area that
// meets it (medications, reminders, reminder preferences, care circle, prescriptions and batches).
/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PREFS_CODE_KEYS } from '../components/notifications/prefsErrors';
import { MEDS_CODE_KEYS } from '../medications/errors';
import { RECORD_CODE_KEYS } from '../medications/recordErrors';
import { NOTIFY_CODE_KEYS } from '../notifications/notifyErrors';
import { CIRCLE_CODE_KEYS } from '../people/circleCodes';
import { flatten, type Tree } from '../test/translations';
import circleDe from './circle/de.json';
import circleEn from './circle/en.json';
import circleEs from './circle/es.json';
import circleFr from './circle/fr.json';
import mainDe from './locales/de.json';
import mainEn from './locales/en.json';
import mainEs from './locales/es.json';
import mainFr from './locales/fr.json';
import medsDe from './medications/de.json';
import medsEn from './medications/en.json';
import medsEs from './medications/es.json';
import medsFr from './medications/fr.json';
import { SERVER_CODE_KEYS, type CodeKeys } from './messages';
import notifyDe from './notify/de.json';
import notifyEn from './notify/en.json';
import notifyEs from './notify/es.json';
import notifyFr from './notify/fr.json';
import prefsDe from './notifyPrefs/de.json';
import prefsEn from './notifyPrefs/en.json';
import prefsEs from './notifyPrefs/es.json';
import prefsFr from './notifyPrefs/fr.json';
import recordsDe from './prescriptions/de.json';
import recordsEn from './prescriptions/en.json';
import recordsEs from './prescriptions/es.json';
import recordsFr from './prescriptions/fr.json';

const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
type Texts = Record<(typeof LANGUAGES)[number], Record<string, string>>;

const texts = (en: Tree, es: Tree, fr: Tree, de: Tree): Texts => ({
  en: flatten(en),
  es: flatten(es),
  fr: flatten(fr),
  de: flatten(de),
});

/** Each code table with the namespace its keys live in. */
const TABLES: { name: string; keys: CodeKeys; texts: Texts }[] = [
  { name: 'main', keys: SERVER_CODE_KEYS, texts: texts(mainEn, mainEs, mainFr, mainDe) },
  { name: 'meds', keys: MEDS_CODE_KEYS, texts: texts(medsEn, medsEs, medsFr, medsDe) },
  { name: 'notify', keys: NOTIFY_CODE_KEYS, texts: texts(notifyEn, notifyEs, notifyFr, notifyDe) },
  { name: 'notifyPrefs', keys: PREFS_CODE_KEYS, texts: texts(prefsEn, prefsEs, prefsFr, prefsDe) },
  { name: 'circle', keys: CIRCLE_CODE_KEYS, texts: texts(circleEn, circleEs, circleFr, circleDe) },
  // A medication's prescription and batches, with the Medications screen (medications/recordErrors).
  { name: 'records', keys: RECORD_CODE_KEYS, texts: texts(recordsEn, recordsEs, recordsFr, recordsDe) },
];

/** The ErrorCode enum of the document the server serves (src/http/openapi.json). */
function documentedCodes(): string[] {
  const path = resolve(import.meta.dirname, '../../../src/http/openapi.json');
  const document = JSON.parse(readFileSync(path, 'utf8')) as { components: { schemas: { ErrorCode: { enum: string[] } } } };
  return document.components.schemas.ErrorCode.enum;
}

/** "table/language: code → key" for every code of `codes` without a text in `table`. */
function untranslated(codes: string[], table: (typeof TABLES)[number]): string[] {
  const keys: Record<string, string | undefined> = table.keys;
  return codes.flatMap((code) => {
    const key = keys[code];
    if (key === undefined) return [`${table.name}: ${code} has no key`];
    return LANGUAGES.filter((language) => (table.texts[language][key] ?? '').trim() === '').map(
      (language) => `${table.name}/${language}: ${code} → ${key}`,
    );
  });
}

describe('error codes', () => {
  const codes = documentedCodes();

  it('are read from the OpenAPI document', () => {
    expect(codes.length).toBeGreaterThan(80);
    expect(codes).toContain('invalid_credentials');
  });

  it('each have a text in some code table, in every language', () => {
    const missing = codes.filter((code) => TABLES.every((table) => table.keys[code as keyof CodeKeys] === undefined));
    expect(missing).toEqual([]);
  });

  it('each have every text their tables name, in every language', () => {
    const problems = TABLES.flatMap((table) =>
      untranslated(
        Object.keys(table.keys).filter((code) => codes.includes(code)),
        table,
      ),
    );
    expect(problems).toEqual([]);
  });

  it('are only codes the document lists', () => {
    const unknown = TABLES.flatMap((table) => Object.keys(table.keys).filter((code) => !codes.includes(code)));
    expect(unknown).toEqual([]);
  });
});

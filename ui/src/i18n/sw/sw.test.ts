import { describe, expect, it } from 'vitest';
import { checkTranslations } from '../../test/translations';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fr from './fr.json';

const english = checkTranslations('service worker', { en, es, fr, de }, { maxCopied: 2 });

describe('service worker texts', () => {
  it('say the outcome in English', () => {
    expect(english.taken).toBe('Logged as taken.');
    expect(english['elsewhere.taken']).toBe('Taken: logged on another device.');
  });
});

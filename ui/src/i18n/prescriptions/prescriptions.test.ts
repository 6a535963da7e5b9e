import { describe, expect, it } from 'vitest';
import { checkTranslations } from '../../test/translations';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fr from './fr.json';

const english = checkTranslations('prescription', { en, es, fr, de }, { plurals: true, maxCopied: 0 });

describe('prescription texts', () => {
  it("name Today's notice and its confirmation", () => {
    expect(english['today.title']).toBe('To order');
    expect(english['today.ordered']).toContain('{{name}}');
  });
});

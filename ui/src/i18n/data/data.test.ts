import { describe, expect, it } from 'vitest';
import { checkTranslations } from '../../test/translations';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fr from './fr.json';

const english = checkTranslations('data management', { en, es, fr, de }, { plurals: true, maxCopied: 3 });

describe('data management texts', () => {
  it('keeps the spec texts in English', () => {
    expect(english['export.json']).toBe('Export Data');
    expect(english['export.success']).toBe('Data exported successfully');
    expect(english['export.failed']).toBe('Failed to export data');
    expect(english['medications.autoBackup']).toBe('Automatically backup your data daily');
    expect(english['common.saved']).toBe('App settings updated successfully');
    expect(english['common.loadFailed']).toBe('Failed to load settings');
  });

  it('names every retention period the server accepts', () => {
    expect(Object.keys(en.retention.options).map(Number).sort((a, b) => a - b)).toEqual([0, 30, 90, 365, 730]);
  });
});

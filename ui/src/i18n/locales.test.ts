import { describe, expect, it } from 'vitest';
import { checkTranslations } from '../test/translations';
import de from './locales/de.json';
import en from './locales/en.json';
import es from './locales/es.json';
import fr from './locales/fr.json';

const english = checkTranslations('shell, account and settings', { en, es, fr, de });

describe('shell, account and settings texts', () => {
  it('keeps the install banner texts of the spec in English', () => {
    expect(english['install.title']).toBe('Install Pillbox');
    expect(english['install.description']).toBe(
      'Install our app for a better experience with offline access and quick access from your home screen',
    );
    expect(english['install.install']).toBe('Install App');
    expect(english['install.notNow']).toBe('Not now');
  });
});

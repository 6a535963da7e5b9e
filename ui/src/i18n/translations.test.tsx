import { act, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { describe, expect, it } from 'vitest';
import i18n from '.';
import { useTranslation } from './useTranslation';

// The test setup has every namespace in every language loaded (src/test/setup.ts), and puts
// the language back to English after each test.

describe('a text', () => {
  it("fills in its values and picks the plural form by the language's rules", () => {
    const meds = i18n.getFixedT('en', 'meds');
    expect(meds('schedule.interval', { count: 1, time: '08:00' })).toBe('Every hour from 08:00');
    expect(meds('schedule.interval', { count: 6, time: '08:00' })).toBe('Every 6 hours from 08:00');
    const french = i18n.getFixedT('fr', 'meds');
    expect(french('schedule.interval', { count: 1, time: '08:00' })).toBe('Toutes les heures à partir de 08:00');
    // French has a third form for a million and more ("many"), which its file spells out.
    expect(french('schedule.interval', { count: 1_000_000, time: '08:00' })).toBe('Toutes les 1000000 heures à partir de 08:00');
    expect(i18n.t('codeInput.digit', { index: 2, total: 6 })).toBe('Digit 2 of 6');
  });

  it("reads another namespace's text by its prefix, and a key no language has shows as itself", () => {
    const meds = i18n.getFixedT('en', 'meds');
    expect(meds('translation:codeInput.digit', { index: 1, total: 8 })).toBe('Digit 1 of 8');
    expect(meds('no.such.key')).toBe('no.such.key');
    // A value left out is left blank, never "undefined".
    expect(i18n.t('codeInput.digit', { index: 3 })).toBe('Digit 3 of ');
  });

  it('is in the language switched to once that language\u2019s texts are in, and components show it', async () => {
    function Heading() {
      const { t } = useTranslation('meds');
      return <h1>{t('schedule.interval', { count: 2, time: '09:00' })}</h1>;
    }
    render(
      <Suspense fallback={<p>loading</p>}>
        <Heading />
      </Suspense>,
    );
    expect(screen.getByRole('heading').textContent).toBe('Every 2 hours from 09:00');
    const told: string[] = [];
    const tell = (language: string) => told.push(language);
    i18n.on('languageChanged', tell);
    await act(async () => {
      await i18n.changeLanguage('de');
    });
    i18n.off('languageChanged', tell);
    expect(i18n.language).toBe('de');
    expect(told).toEqual(['de']);
    expect(screen.getByRole('heading').textContent).toBe(i18n.getFixedT('de', 'meds')('schedule.interval', { count: 2, time: '09:00' }));
    expect(screen.getByRole('heading').textContent).not.toBe('Every 2 hours from 09:00');
  });

  it('refuses a language Pillbox does not speak, and stays in the one shown', async () => {
    await expect(i18n.changeLanguage('pt')).rejects.toThrow('Pillbox has no texts in pt');
    expect(i18n.language).toBe('en');
  });
});

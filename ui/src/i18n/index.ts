import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { loadSettings, type Language } from '../settings/appSettings';
import de from './locales/de.json';
import en from './locales/en.json';
import es from './locales/es.json';
import fr from './locales/fr.json';
import medsDe from './medications/de.json';
import medsEn from './medications/en.json';
import medsEs from './medications/es.json';
import medsFr from './medications/fr.json';

/** Each language's name in that language, for the language picker. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  es: 'Español',
  fr: 'Français',
  de: 'Deutsch',
};

void i18n.use(initReactI18next).init({
  resources: {
    en: { translation: en, meds: medsEn },
    es: { translation: es, meds: medsEs },
    fr: { translation: fr, meds: medsFr },
    de: { translation: de, meds: medsDe },
  },
  lng: loadSettings().language,
  fallbackLng: 'en',
  supportedLngs: ['en', 'es', 'fr', 'de'],
  interpolation: { escapeValue: false },
  initAsync: false,
  returnNull: false,
  react: { useSuspense: false },
});

export default i18n;

import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { loadSettings, type Language } from '../settings/appSettings';
import circleDe from './circle/de.json';
import circleEn from './circle/en.json';
import circleEs from './circle/es.json';
import circleFr from './circle/fr.json';
import dataDe from './data/de.json';
import dataEn from './data/en.json';
import dataEs from './data/es.json';
import dataFr from './data/fr.json';
import de from './locales/de.json';
import en from './locales/en.json';
import es from './locales/es.json';
import fr from './locales/fr.json';
import medsDe from './medications/de.json';
import medsEn from './medications/en.json';
import medsEs from './medications/es.json';
import medsFr from './medications/fr.json';
import notifyDe from './notify/de.json';
import notifyEn from './notify/en.json';
import notifyEs from './notify/es.json';
import notifyFr from './notify/fr.json';
import prefsDe from './notifyPrefs/de.json';
import prefsEn from './notifyPrefs/en.json';
import prefsEs from './notifyPrefs/es.json';
import prefsFr from './notifyPrefs/fr.json';

/** Each language's name in that language, for the language picker. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  es: 'Español',
  fr: 'Français',
  de: 'Deutsch',
};

/** Every namespace of the app in every language (tests check they all hold the same keys). */
export const RESOURCES = {
  en: { translation: en, meds: medsEn, notify: notifyEn, notifyPrefs: prefsEn, data: dataEn, circle: circleEn },
  es: { translation: es, meds: medsEs, notify: notifyEs, notifyPrefs: prefsEs, data: dataEs, circle: circleEs },
  fr: { translation: fr, meds: medsFr, notify: notifyFr, notifyPrefs: prefsFr, data: dataFr, circle: circleFr },
  de: { translation: de, meds: medsDe, notify: notifyDe, notifyPrefs: prefsDe, data: dataDe, circle: circleDe },
};

void i18n.use(initReactI18next).init({
  resources: RESOURCES,
  // The language chosen, else the browser's first that Pillbox speaks (see loadSettings).
  lng: loadSettings().language,
  fallbackLng: 'en',
  supportedLngs: ['en', 'es', 'fr', 'de'],
  interpolation: { escapeValue: false },
  initAsync: false,
  returnNull: false,
  react: { useSuspense: false },
});

export default i18n;

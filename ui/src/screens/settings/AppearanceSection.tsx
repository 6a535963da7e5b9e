import { useTranslation } from '../../i18n/useTranslation';
import { FlashMessage } from '../../components/FlashMessage';
import { useFlash } from '../../components/useFlash';
import { LANGUAGE_NAMES } from '../../i18n';
import { formatPlainDate, formatTimeOfDay } from '../../medications/format';
import {
  DATE_FORMATS,
  LANGUAGES,
  languageOf,
  THEMES,
  TIME_FORMATS,
  type AppSettings,
  type DateFormat,
  type Language,
  type TimeFormat,
} from '../../settings/appSettings';
import { useAppSettings } from '../../settings/SettingsContext';
import { SectionHeading } from './SectionHeading';
import { TimeZoneField } from './TimeZoneField';

/** Each date format's key under `settings.appearance.dateFormats`. */
const DATE_FORMAT_KEYS: Record<DateFormat, string> = {
  auto: 'auto',
  'MM/dd/yyyy': 'monthDayYear',
  'dd/MM/yyyy': 'dayMonthYear',
  'yyyy-MM-dd': 'yearMonthDay',
};

/** The date and time the pickers show each format with. */
const EXAMPLE_DATE = '2026-11-26';
const EXAMPLE_TIME = '14:30';

export function AppearanceSection() {
  const { t } = useTranslation();
  const { settings, updateSettings } = useAppSettings();
  // The message is kept as a key: a language change must show it in the new language.
  const [flash, showFlash] = useFlash();

  const change = (changes: Partial<AppSettings>) => {
    updateSettings(changes);
    showFlash('success', 'settings.appearance.saved');
  };

  return (
    <>
      <SectionHeading title={t('settings.sections.appearance')} description={t('settings.appearance.description')} />
      <FlashMessage flash={flash && { ...flash, text: t(flash.text) }} />
      <div className="card form form-tight">
        <fieldset className="choice-group">
          <legend>{t('settings.appearance.theme')}</legend>
          <div className="segmented">
            {THEMES.map((theme) => (
              <label key={theme} className="segment">
                <input
                  type="radio"
                  name="theme"
                  value={theme}
                  checked={settings.theme === theme}
                  onChange={() => change({ theme })}
                />
                <span>{t(`settings.appearance.themes.${theme}`)}</span>
              </label>
            ))}
          </div>
        </fieldset>

        <div className="field">
          <label htmlFor="settings-language">{t('settings.appearance.language')}</label>
          <select
            id="settings-language"
            value={settings.language}
            onChange={(event) => {
              const language = languageOf(event.target.value);
              if (language) change({ language: language satisfies Language });
            }}
          >
            {LANGUAGES.map((language) => (
              <option key={language} value={language} lang={language}>
                {LANGUAGE_NAMES[language]}
              </option>
            ))}
          </select>
        </div>

        <div className="field">
          <label htmlFor="settings-date-format">{t('settings.appearance.dateFormat')}</label>
          <select
            id="settings-date-format"
            value={settings.dateFormat}
            onChange={(event) => {
              const dateFormat = DATE_FORMATS.find((candidate) => candidate === event.target.value);
              if (dateFormat) change({ dateFormat });
            }}
          >
            {DATE_FORMATS.map((format) => (
              <option key={format} value={format}>
                {t(`settings.appearance.dateFormats.${DATE_FORMAT_KEYS[format]}`, {
                  example: formatPlainDate(EXAMPLE_DATE, format, settings.language),
                })}
              </option>
            ))}
          </select>
        </div>

        <div className="field">
          <label htmlFor="settings-time-format">{t('settings.appearance.timeFormat')}</label>
          <select
            id="settings-time-format"
            value={settings.timeFormat}
            onChange={(event) => {
              const timeFormat = TIME_FORMATS.find((candidate) => candidate === event.target.value);
              if (timeFormat) change({ timeFormat: timeFormat satisfies TimeFormat });
            }}
          >
            {TIME_FORMATS.map((format) => (
              <option key={format} value={format}>
                {t(`settings.appearance.timeFormats.${format}`, {
                  example: formatTimeOfDay(EXAMPLE_TIME, format, settings.language),
                })}
              </option>
            ))}
          </select>
        </div>

        <TimeZoneField />
      </div>
    </>
  );
}

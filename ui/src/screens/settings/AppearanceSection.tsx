import { useTranslation } from 'react-i18next';
import { FlashMessage } from '../../components/FlashMessage';
import { useFlash } from '../../components/useFlash';
import { LANGUAGE_NAMES } from '../../i18n';
import {
  DATE_FORMATS,
  LANGUAGES,
  THEMES,
  type AppSettings,
  type DateFormat,
  type Language,
} from '../../settings/appSettings';
import { useAppSettings } from '../../settings/SettingsContext';
import { SectionHeading } from './SectionHeading';
import { TimeZoneField } from './TimeZoneField';

/** How the date formats are shown in the picker (spec §2 "Appearance"). */
const DATE_FORMAT_LABELS: Record<DateFormat, string> = {
  'MM/dd/yyyy': 'MM/DD/YYYY',
  'dd/MM/yyyy': 'DD/MM/YYYY',
  'yyyy-MM-dd': 'YYYY-MM-DD',
};

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
              const language = LANGUAGES.find((candidate) => candidate === event.target.value);
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
                {DATE_FORMAT_LABELS[format]}
              </option>
            ))}
          </select>
        </div>

        <label className="switch-row">
          <span className="switch-text">
            <span className="switch-label">{t('settings.appearance.time24')}</span>
            <span className="field-hint">{t('settings.appearance.time24Hint')}</span>
          </span>
          <input
            type="checkbox"
            role="switch"
            className="switch"
            checked={settings.timeFormat === '24h'}
            onChange={(event) => change({ timeFormat: event.target.checked ? '24h' : '12h' })}
          />
        </label>

        <TimeZoneField />
      </div>
    </>
  );
}

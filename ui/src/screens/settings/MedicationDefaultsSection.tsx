import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { DataSettings } from '../../api/data';
import { DisabledReason, disabledBecause } from '../../components/DisabledReason';
import { FlashMessage } from '../../components/FlashMessage';
import { SwitchField } from '../../components/notifications/preferenceFields';
import { useFlash } from '../../components/useFlash';
import { useSaveDataSettings } from '../../queries/account';
import { useAppSettings } from '../../settings/SettingsContext';
import { BackupList } from './data/BackupList';
import { failureReason } from './data/failureReason';
import { SettingsLoadState } from './data/SettingsLoadState';
import { useDataSettings } from './data/useDataSettings';
import { SectionHeading } from './SectionHeading';
import '../../styles/data.css';

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** SPEC §2 "Medications": the default reminder time and daily auto-backup (with its files). */
export function MedicationDefaultsSection() {
  const { t: tApp } = useTranslation();
  const { t } = useTranslation('data');
  const { updateSettings } = useAppSettings();
  const { settings, failed, retry } = useDataSettings();
  const saveSettings = useSaveDataSettings();
  const saving = saveSettings.isPending;
  const [time, setTime] = useState<string | null>(null);
  const [flash, showFlash] = useFlash();
  const unchanged = time === null ? t('medications.timeUnchanged') : null;

  const save = async (changes: Partial<DataSettings>) => {
    try {
      const saved = await saveSettings.mutateAsync(changes);
      // The browser's copy of the settings (SPEC §3) follows the server's.
      updateSettings({ defaultReminderTime: saved.defaultReminderTime, autoBackup: saved.autoBackup });
      showFlash('success', t('common.saved'));
      return true;
    } catch (error) {
      showFlash('error', failureReason(error) ?? t('common.saveFailed'));
      return false;
    }
  };

  const saveTime = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (time === null) return;
    if (!TIME.test(time)) {
      showFlash('error', t('medications.timeRequired'));
      return;
    }
    if (await save({ defaultReminderTime: time })) setTime(null);
  };

  return (
    <>
      <SectionHeading title={tApp('settings.sections.medications')} description={t('medications.description')} />
      <FlashMessage flash={flash} />
      <div className="card">
        {!settings ? (
          <SettingsLoadState failed={failed} onRetry={retry} />
        ) : (
          <>
            <form className="form form-tight data-form" noValidate onSubmit={(event) => void saveTime(event)}>
              <div className="field">
                <label htmlFor="default-reminder-time">{t('medications.reminderTime')}</label>
                <input
                  id="default-reminder-time"
                  type="time"
                  required
                  value={time ?? settings.defaultReminderTime}
                  aria-describedby="default-reminder-time-hint"
                  onChange={(event) => setTime(event.target.value)}
                />
                <p id="default-reminder-time-hint" className="field-hint">
                  {t('medications.reminderTimeHint')}
                </p>
              </div>
              <DisabledReason id="default-reminder-time-unchanged" reason={unchanged} />
              <div className="button-row">
                <button
                  type="submit"
                  className="button button-primary"
                  disabled={saving || time === null}
                  {...disabledBecause('default-reminder-time-unchanged', unchanged)}
                >
                  {saving && time !== null ? t('common.saving') : t('medications.save')}
                </button>
              </div>
            </form>
            <div className="subsection">
              <SwitchField
                label={t('medications.autoBackup')}
                hint={t('medications.autoBackupHint')}
                checked={settings.autoBackup}
                disabled={saving}
                onChange={(on) => void save({ autoBackup: on })}
              />
            </div>
            {settings.autoBackup && (
              <section className="subsection" aria-labelledby="medications-backups-title">
                <h4 id="medications-backups-title">{t('backups.title')}</h4>
                <BackupList />
              </section>
            )}
          </>
        )}
      </div>
    </>
  );
}

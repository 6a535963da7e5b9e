import { useEffect, useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import {
  getGlobalPreferences,
  getNotificationSettings,
  saveNotificationSettings,
  type NotificationSettings,
} from '../../api/notificationPrefs';
import { FlashMessage } from '../../components/FlashMessage';
import {
  EmailUnavailableNote,
  NumberSelect,
  SETTINGS_LEAD_OPTIONS,
  SwitchField,
  leadText,
} from '../../components/notifications/preferenceFields';
import { prefsErrorText } from '../../components/notifications/prefsErrors';
import { useFlash } from '../../components/useFlash';
import { SectionHeading } from './SectionHeading';
import '../../styles/preferences.css';

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** SPEC §2 "Settings page", Notifications: the notification settings of SPEC §3. */
export function NotificationsSection() {
  const { t: tApp } = useTranslation();
  const { t } = useTranslation('notifyPrefs');
  const [settings, setSettings] = useState<NotificationSettings | null>(null);
  const [emailAvailable, setEmailAvailable] = useState(true);
  const [loadFailed, setLoadFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [saving, setSaving] = useState(false);
  // Successes go after 3 s, errors after 5 s (SPEC §4).
  const [flash, showFlash, clearFlash] = useFlash();

  useEffect(() => {
    const controller = new AbortController();
    getNotificationSettings(controller.signal)
      .then(setSettings)
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setLoadFailed(true);
        showFlash('error', prefsErrorText(t, error, 'settings.loadFailed'));
      });
    // Only to say when e-mail cannot be sent from this server.
    getGlobalPreferences(controller.signal)
      .then((preferences) => setEmailAvailable(preferences.email_available))
      .catch(() => undefined);
    return () => controller.abort();
  }, [attempt, showFlash, t]);

  const change = (changes: Partial<NotificationSettings>) => setSettings((s) => (s ? { ...s, ...changes } : s));

  const retry = () => {
    clearFlash();
    setLoadFailed(false);
    setAttempt((n) => n + 1);
  };

  const save = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!settings) return;
    if (!TIME.test(settings.daily_reminder_time)) {
      showFlash('error', t('settings.timeRequired'));
      return;
    }
    setSaving(true);
    try {
      setSettings(await saveNotificationSettings(settings));
      showFlash('success', t('settings.updated'));
    } catch (error) {
      showFlash('error', prefsErrorText(t, error, 'settings.updateFailed'));
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <SectionHeading title={tApp('settings.sections.notifications')} description={t('settings.description')} />
      <FlashMessage flash={flash} />
      <div className="card prefs-section">
        {loadFailed && (
          <div className="button-row">
            <p className="muted">{t('settings.notLoaded')}</p>
            <button type="button" className="button button-secondary" onClick={retry}>
              {t('settings.retry')}
            </button>
          </div>
        )}
        {!loadFailed && !settings && (
          <p className="muted" role="status">
            {t('settings.loading')}
          </p>
        )}
        {settings && (
          <form className="form form-tight prefs-form" noValidate onSubmit={(event) => void save(event)}>
            <SwitchField
              label={t('settings.medicationReminders')}
              hint={t('settings.medicationRemindersHint')}
              checked={settings.medication_reminders}
              onChange={(on) => change({ medication_reminders: on })}
            />
            <NumberSelect
              id="notify-settings-lead"
              label={t('fields.defaultLead')}
              value={settings.reminder_time_before}
              options={SETTINGS_LEAD_OPTIONS}
              text={(minutes) => leadText(t, minutes)}
              onChange={(minutes) => change({ reminder_time_before: minutes })}
            />
            <div className="field">
              <label htmlFor="notify-settings-daily-time">{t('settings.dailyTime')}</label>
              <input
                id="notify-settings-daily-time"
                type="time"
                required
                value={settings.daily_reminder_time}
                aria-describedby="notify-settings-daily-time-hint"
                onChange={(event) => change({ daily_reminder_time: event.target.value })}
              />
              <p id="notify-settings-daily-time-hint" className="field-hint">
                {t('settings.dailyTimeHint')}
              </p>
            </div>
            <SwitchField
              label={t('fields.push')}
              hint={t('fields.pushHint')}
              checked={settings.push_notifications}
              onChange={(on) => change({ push_notifications: on })}
            />
            <SwitchField
              label={t('fields.email')}
              hint={t('fields.emailHint')}
              checked={settings.email_notifications}
              onChange={(on) => change({ email_notifications: on })}
            />
            {!emailAvailable && <EmailUnavailableNote />}
            <div className="button-row">
              <button type="submit" className="button button-primary" disabled={saving}>
                {saving ? t('dialog.saving') : t('settings.save')}
              </button>
            </div>
          </form>
        )}
      </div>
    </>
  );
}

import { useEffect, useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { Link } from 'react-router-dom';
import type { NotificationSettings } from '../../api/notificationPrefs';
import { FlashMessage } from '../../components/FlashMessage';
import { NOTIFICATION_SETTINGS_PATH } from '../../components/medications/DeliveryWarningNote';
import {
  NumberSelect,
  SETTINGS_LEAD_OPTIONS,
  SwitchField,
  leadText,
} from '../../components/notifications/preferenceFields';
import { prefsErrorText } from '../../components/notifications/prefsErrors';
import { useFlash } from '../../components/useFlash';
import {
  useNotificationSettingsQuery,
  useSaveNotificationSettings,
} from '../../queries/notifications';
import { CalendarFeedCard } from './CalendarFeedCard';
import { ChannelsCard } from './channels/ChannelsCard';
import { SectionHeading } from './SectionHeading';
import '../../styles/preferences.css';

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** SPEC §2 "Settings page", Notifications: the notification settings of SPEC §3. */
export function NotificationsSection() {
  const { t: tApp } = useTranslation();
  const { t } = useTranslation('notifyPrefs');
  const query = useNotificationSettingsQuery();
  const saving = useSaveNotificationSettings();
  // The person's edits; null shows the settings as the server has them.
  const [edited, setEdited] = useState<NotificationSettings | null>(null);
  const settings = edited ?? query.data ?? null;
  const loadFailed = !query.data && query.isError && !query.isFetching;
  const { error: loadError, errorUpdatedAt } = query;
  // Successes go after 3 s, errors after 5 s (SPEC §4).
  const [flash, showFlash, clearFlash] = useFlash();

  useEffect(() => {
    if (loadFailed && loadError) showFlash('error', prefsErrorText(t, loadError, 'settings.loadFailed'));
  }, [loadFailed, loadError, errorUpdatedAt, showFlash, t]);

  const change = (changes: Partial<NotificationSettings>) => setEdited(settings && { ...settings, ...changes });

  const retry = () => {
    clearFlash();
    void query.refetch();
  };

  const save = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!settings) return;
    if (!TIME.test(settings.daily_reminder_time)) {
      showFlash('error', t('settings.timeRequired'));
      return;
    }
    try {
      await saving.mutateAsync(settings);
      setEdited(null);
      showFlash('success', t('settings.updated'));
    } catch (error) {
      showFlash('error', prefsErrorText(t, error, 'settings.updateFailed'));
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
            <div className="field" data-testid="methods-elsewhere">
              <p className="field-hint">{t('settings.methodsElsewhere')}</p>
              <Link to={NOTIFICATION_SETTINGS_PATH} className="button button-secondary button-small">
                {t('settings.methodsLink')}
              </Link>
            </div>
            <div className="button-row">
              <button type="submit" className="button button-primary" disabled={saving.isPending}>
                {saving.isPending ? t('dialog.saving') : t('settings.save')}
              </button>
            </div>
          </form>
        )}
      </div>
      <ChannelsCard />
      <CalendarFeedCard />
    </>
  );
}

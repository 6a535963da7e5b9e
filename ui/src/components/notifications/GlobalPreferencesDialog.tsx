import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { GlobalPreferences } from '../../api/notificationPrefs';
import { useGlobalPreferencesQuery, useSaveGlobalPreferences } from '../../queries/notifications';
import {
  DIALOG_LEAD_OPTIONS,
  EmailUnavailableNote,
  MethodChoices,
  NumberSelect,
  SwitchField,
  leadText,
} from './preferenceFields';
import { prefsErrorText } from './prefsErrors';
import { PreferencesDialogFrame } from './PreferencesDialogFrame';
import { usePreferencesActions } from './usePreferencesActions';

/** Beyond the spec: how often an unanswered reminder comes again, and how many times. */
const REPEAT_INTERVAL_OPTIONS = [5, 10, 15, 30, 60] as const;
const REPEAT_MAX_OPTIONS = [0, 1, 2, 3, 5] as const;

/** What the dialog edits; the master switch belongs to the Settings page. */
type GlobalForm = Omit<GlobalPreferences, 'reminders_enabled' | 'email_available'>;

function formOf(p: GlobalPreferences): GlobalForm {
  return {
    email_notifications_enabled: p.email_notifications_enabled,
    push_notifications_enabled: p.push_notifications_enabled,
    notification_sound_enabled: p.notification_sound_enabled,
    notification_vibration_enabled: p.notification_vibration_enabled,
    default_reminder_minutes_before: p.default_reminder_minutes_before,
    default_delivery_methods: p.default_delivery_methods,
    repeat_interval_minutes: p.repeat_interval_minutes,
    repeat_max: p.repeat_max,
    hide_medication_names: p.hide_medication_names,
    email_fallback_enabled: p.email_fallback_enabled,
  };
}

/** SPEC §2 "Notification preferences dialog", global mode: the defaults of every reminder. */
export function GlobalPreferencesDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation('notifyPrefs');
  const actions = usePreferencesActions(onClose);
  const query = useGlobalPreferencesQuery();
  const saving = useSaveGlobalPreferences();
  // The person's edits; null shows the preferences as the server has them.
  const [edited, setEdited] = useState<GlobalForm | null>(null);
  const form = edited ?? (query.data ? formOf(query.data) : null);
  const emailAvailable = query.data?.email_available ?? true;
  const loadError = !query.data && query.error ? prefsErrorText(t, query.error, 'errors.load') : null;

  const change = (changes: Partial<GlobalForm>) => setEdited(form && { ...form, ...changes });

  const save = () => {
    if (!form) return;
    if (form.default_delivery_methods.length === 0) {
      actions.showError(t('server.chooseMethod'));
      return;
    }
    // With e-mail off the fallback is off whatever was chosen: the choice is left as it is,
    // so it is on again by default when e-mail is turned on elsewhere.
    const { email_fallback_enabled, ...rest } = form;
    const changes = form.email_notifications_enabled ? { ...rest, email_fallback_enabled } : rest;
    void actions.save(async () => {
      await saving.mutateAsync(changes);
      setEdited(null);
    });
  };

  return (
    <PreferencesDialogFrame
      title={t('dialog.title')}
      actions={actions}
      loaded={form !== null}
      loadError={loadError}
      testMethods={form?.default_delivery_methods ?? []}
      onSave={save}
      onClose={onClose}
    >
      {form && (
        <>
          <fieldset className="choice-group prefs-group">
            <legend>{t('fields.channels')}</legend>
            <SwitchField
              label={t('fields.push')}
              hint={t('fields.pushHint')}
              checked={form.push_notifications_enabled}
              onChange={(on) => change({ push_notifications_enabled: on })}
            />
            <SwitchField
              label={t('fields.emailFallback')}
              hint={form.email_notifications_enabled ? t('fields.emailFallbackHint') : t('fields.emailFallbackNeedsEmail')}
              checked={form.email_notifications_enabled && form.email_fallback_enabled}
              disabled={!form.email_notifications_enabled}
              onChange={(on) => change({ email_fallback_enabled: on })}
            />
            <SwitchField
              label={t('fields.email')}
              hint={t('fields.emailHint')}
              checked={form.email_notifications_enabled}
              onChange={(on) =>
                // Turned on, e-mail brings its fallback with it (on by default).
                change(
                  on && !form.email_notifications_enabled
                    ? { email_notifications_enabled: true, email_fallback_enabled: true }
                    : { email_notifications_enabled: on },
                )
              }
            />
            {!emailAvailable && <EmailUnavailableNote />}
            <SwitchField
              label={t('fields.sound')}
              hint={t('fields.soundHint')}
              checked={form.notification_sound_enabled}
              onChange={(on) => change({ notification_sound_enabled: on })}
            />
            <SwitchField
              label={t('fields.vibration')}
              hint={t('fields.vibrationHint')}
              checked={form.notification_vibration_enabled}
              onChange={(on) => change({ notification_vibration_enabled: on })}
            />
            <SwitchField
              label={t('fields.hideNames')}
              hint={t('fields.hideNamesHint')}
              checked={form.hide_medication_names}
              onChange={(on) => change({ hide_medication_names: on })}
            />
          </fieldset>

          <NumberSelect
            id="prefs-default-lead"
            label={t('fields.defaultLead')}
            value={form.default_reminder_minutes_before}
            options={DIALOG_LEAD_OPTIONS}
            text={(minutes) => leadText(t, minutes)}
            onChange={(minutes) => change({ default_reminder_minutes_before: minutes })}
          />

          <MethodChoices
            legend={t('fields.defaultMethods')}
            value={form.default_delivery_methods}
            onChange={(methods) => change({ default_delivery_methods: methods })}
          />

          <div className="field-row">
            <NumberSelect
              id="prefs-repeat-max"
              label={t('fields.repeatMax')}
              value={form.repeat_max}
              options={REPEAT_MAX_OPTIONS}
              text={(count) => (count === 0 ? t('repeat.off') : t('repeat.times', { count }))}
              onChange={(count) => change({ repeat_max: count })}
            />
            <NumberSelect
              id="prefs-repeat-interval"
              label={t('fields.repeatInterval')}
              value={form.repeat_interval_minutes}
              options={REPEAT_INTERVAL_OPTIONS}
              text={(minutes) =>
                minutes % 60 === 0
                  ? t('repeat.everyHours', { count: minutes / 60 })
                  : t('repeat.everyMinutes', { count: minutes })
              }
              onChange={(minutes) => change({ repeat_interval_minutes: minutes })}
              disabled={form.repeat_max === 0}
            />
          </div>
          <p className="field-hint prefs-repeat-hint">{t('fields.repeatHint')}</p>
        </>
      )}
    </PreferencesDialogFrame>
  );
}

import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  getGlobalPreferences,
  getMedicationPreferences,
  saveMedicationPreferences,
  type GlobalPreferences,
  type MedicationPreferences,
} from '../../api/notificationPrefs';
import type { DeliveryMethod } from '../../api/notifications';
import {
  DIALOG_LEAD_OPTIONS,
  EffectiveMethods,
  EmailUnavailableNote,
  MethodChoices,
  NumberSelect,
  SwitchField,
  leadText,
} from './preferenceFields';
import { prefsErrorText } from './prefsErrors';
import { PreferencesDialogFrame } from './PreferencesDialogFrame';
import { usePreferencesActions } from './usePreferencesActions';

/** The server keeps custom messages of at most 500 characters. */
const MAX_MESSAGE_LENGTH = 500;

interface MedicationForm {
  useDefaults: boolean;
  methods: DeliveryMethod[];
  minutes: number;
  message: string;
}

function formOf(p: MedicationPreferences): MedicationForm {
  return {
    useDefaults: p.uses_defaults,
    methods: p.delivery_methods,
    minutes: p.reminder_minutes_before,
    message: p.custom_message ?? '',
  };
}

/** The values on screen: the global defaults while "use my default settings" is on. */
function shownValues(form: MedicationForm, defaults: GlobalPreferences | null): MedicationForm {
  if (!form.useDefaults) return form;
  return defaults
    ? {
        ...form,
        methods: defaults.default_delivery_methods,
        minutes: defaults.default_reminder_minutes_before,
        message: '',
      }
    : { ...form, message: '' };
}

interface MedicationPreferencesDialogProps {
  medication: { id: number; name: string };
  onClose: () => void;
}

/** SPEC §2 "Notification preferences dialog" for one medication. */
export function MedicationPreferencesDialog({ medication, onClose }: MedicationPreferencesDialogProps) {
  const { t } = useTranslation('notifyPrefs');
  const actions = usePreferencesActions(onClose);
  const { id } = medication;
  const [form, setForm] = useState<MedicationForm | null>(null);
  // The global preferences, for the defaults and whether e-mail works here; a courtesy.
  const [defaults, setDefaults] = useState<GlobalPreferences | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    Promise.all([
      getMedicationPreferences(id, controller.signal),
      getGlobalPreferences(controller.signal).catch(() => null),
    ])
      .then(([own, global]) => {
        setForm(formOf(own));
        setDefaults(global);
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setLoadError(prefsErrorText(t, error, 'errors.load'));
      });
    return () => controller.abort();
  }, [id, t]);

  const change = (changes: Partial<MedicationForm>) => setForm((f) => (f ? { ...f, ...changes } : f));
  const shown = form ? shownValues(form, defaults) : null;

  const save = () => {
    // SPEC §5: nothing is sent before this medication's preferences have loaded.
    if (!form) return;
    if (!form.useDefaults && form.methods.length === 0) {
      actions.showError(t('server.chooseMethod'));
      return;
    }
    void actions.save(async () => {
      const saved = await saveMedicationPreferences(
        id,
        form.useDefaults
          ? { use_defaults: true }
          : { delivery_methods: form.methods, reminder_minutes_before: form.minutes, custom_message: form.message.trim() },
      );
      setForm(formOf(saved));
    });
  };

  return (
    <PreferencesDialogFrame
      title={t('dialog.titleFor', { name: medication.name })}
      actions={actions}
      loaded={form !== null}
      loadError={loadError}
      testMethods={shown?.methods ?? []}
      onSave={save}
      onClose={onClose}
    >
      {form && shown && (
        <>
          <SwitchField
            label={t('fields.useDefaults')}
            hint={t('fields.useDefaultsHint')}
            checked={form.useDefaults}
            onChange={(on) => change({ useDefaults: on })}
          />
          <MethodChoices
            legend={t('fields.methods')}
            value={shown.methods}
            onChange={(methods) => change({ methods })}
            disabled={form.useDefaults}
          />
          {defaults?.email_available === false && <EmailUnavailableNote />}
          {defaults && <EffectiveMethods chosen={shown.methods} global={defaults} fromDefaults={form.useDefaults} />}
          <NumberSelect
            id={`prefs-lead-${id}`}
            label={t('fields.lead')}
            value={shown.minutes}
            options={DIALOG_LEAD_OPTIONS}
            text={(minutes) => leadText(t, minutes)}
            onChange={(minutes) => change({ minutes })}
            disabled={form.useDefaults}
          />
          <div className="field">
            <label htmlFor={`prefs-message-${id}`}>{t('fields.customMessage')}</label>
            <textarea
              id={`prefs-message-${id}`}
              rows={2}
              maxLength={MAX_MESSAGE_LENGTH}
              value={shown.message}
              placeholder={t('fields.customMessagePlaceholder', { name: medication.name })}
              aria-describedby={`prefs-message-${id}-hint`}
              onChange={(event) => change({ message: event.target.value })}
              disabled={form.useDefaults}
            />
            <p id={`prefs-message-${id}-hint`} className="field-hint">
              {t('fields.customMessageHint')}
            </p>
          </div>
        </>
      )}
    </PreferencesDialogFrame>
  );
}

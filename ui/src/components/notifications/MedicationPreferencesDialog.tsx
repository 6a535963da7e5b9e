import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { GlobalPreferences, MedicationPreferences } from '../../api/notificationPrefs';
import { DELIVERY_WARNINGS } from '../../api/medicationTypes';
import type { DeliveryMethod } from '../../api/notifications';
import { DeliveryWarningNote } from '../medications/DeliveryWarningNote';
import {
  useGlobalPreferencesQuery,
  useMedicationPreferencesQuery,
  useSaveMedicationPreferences,
} from '../../queries/notifications';
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
  /** With its delivery warning, the dialog says why its reminders reach nobody, and the fix. */
  medication: { id: number; name: string; delivery_warning?: string | null };
  onClose: () => void;
}

/** SPEC §2 "Notification preferences dialog" for one medication. */
export function MedicationPreferencesDialog({ medication, onClose }: MedicationPreferencesDialogProps) {
  const { t } = useTranslation('notifyPrefs');
  const actions = usePreferencesActions(onClose);
  const { id } = medication;
  const warning = DELIVERY_WARNINGS.find((known) => known === medication.delivery_warning);
  const ownQuery = useMedicationPreferencesQuery(id);
  // The global preferences, for the defaults and whether e-mail works here; a courtesy.
  const globalQuery = useGlobalPreferencesQuery();
  const saving = useSaveMedicationPreferences(id);
  // The person's edits; null shows the preferences as the server has them.
  const [edited, setEdited] = useState<MedicationForm | null>(null);
  const defaults: GlobalPreferences | null = globalQuery.data ?? null;
  // Opens once both answered (the global ones may fail: the form works without them).
  const loaded = ownQuery.data && !globalQuery.isPending ? ownQuery.data : null;
  const form = edited ?? (loaded ? formOf(loaded) : null);
  const loadError = !ownQuery.data && ownQuery.error ? prefsErrorText(t, ownQuery.error, 'errors.load') : null;

  const change = (changes: Partial<MedicationForm>) => setEdited(form && { ...form, ...changes });
  const shown = form ? shownValues(form, defaults) : null;

  const save = () => {
    // SPEC §5: nothing is sent before this medication's preferences have loaded.
    if (!form) return;
    if (!form.useDefaults && form.methods.length === 0) {
      actions.showError(t('server.chooseMethod'));
      return;
    }
    void actions.save(async () => {
      await saving.mutateAsync(
        form.useDefaults
          ? { use_defaults: true }
          : { delivery_methods: form.methods, reminder_minutes_before: form.minutes, custom_message: form.message.trim() },
      );
      setEdited(null);
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
          {warning !== undefined && edited === null && <DeliveryWarningNote code={warning} />}
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

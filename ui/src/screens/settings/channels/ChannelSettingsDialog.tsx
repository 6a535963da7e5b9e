import { useId, useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../../i18n/useTranslation';
import type { Channel } from '../../../api/channels';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/medications/FormError';
import { prefsErrorText } from '../../../components/notifications/prefsErrors';
import {
  channelChangeRequest,
  channelFormOf,
  keptSecret,
  missingField,
  settingFields,
  type ChannelForm,
} from '../../../notifications/channelForm';
import { refusalOf, type FieldProblem } from '../../../notifications/channelWords';
import { useUpdateChannel } from '../../../queries/channels';
import { KindFields } from './ChannelFields';

interface ChannelSettingsDialogProps {
  channel: Channel;
  onClose: () => void;
  /** Said on the card once the settings are saved. */
  onSaved: (saved: Channel) => void;
}

/**
 * Settings → Notifications → Channels → Change settings: an ntfy, Gotify or webhook channel's
 * settings as the server shows them. Tokens and passwords are never shown: left empty, the
 * saved one stays.
 */
export function ChannelSettingsDialog({ channel, onClose, onSaved }: ChannelSettingsDialogProps) {
  const { t } = useTranslation('notifyPrefs');
  const [form, setForm] = useState<ChannelForm>(() => channelFormOf(channel));
  const [problem, setProblem] = useState<FieldProblem | null>(null);
  const [error, setError] = useState<string | null>(null);
  const update = useUpdateChannel();
  const formId = useId();
  const busy = update.isPending;
  const kept = keptSecret(channel, form);

  const change = (changes: Partial<ChannelForm>) => setForm((current) => ({ ...current, ...changes }));

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setError(null);
    const missing = missingField(form, kept);
    if (missing) {
      setProblem({ field: missing, text: t(`channels.errors.field.${missing}`) });
      return;
    }
    setProblem(null);
    try {
      const saved = await update.mutateAsync({ id: channel.id, changes: { config: channelChangeRequest(channel, form) } });
      onSaved(saved);
    } catch (caught) {
      const refusal = refusalOf(t, caught, settingFields(form), t('channels.changeFailed'));
      setProblem(refusal?.problem ?? null);
      setError(refusal ? refusal.error : prefsErrorText(t, caught, 'channels.changeFailed'));
    }
  };

  return (
    <Dialog
      title={t('channels.settingsTitle', { name: channel.name })}
      onClose={busy ? undefined : onClose}
      className="prefs-dialog channel-dialog"
      actions={
        <>
          <button type="submit" form={formId} className="button button-primary" disabled={busy}>
            {busy ? t('channels.saving') : t('channels.save')}
          </button>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('channels.cancel')}
          </button>
        </>
      }
    >
      <form
        id={formId}
        className="form form-tight prefs-form"
        noValidate
        onSubmit={(e) => void submit(e)}
        data-testid="channel-settings"
      >
        <FormError text={error} />
        <KindFields form={form} formId={formId} problem={problem} onChange={change} kept={kept} />
      </form>
    </Dialog>
  );
}

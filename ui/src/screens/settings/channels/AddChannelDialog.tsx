import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode, type SubmitEvent } from 'react';
import { useTranslation } from '../../../i18n/useTranslation';
import { CHANNEL_KINDS, type CreatedChannel } from '../../../api/channels';
import { CopyButton } from '../../../components/CopyButton';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/medications/FormError';
import { prefsErrorText } from '../../../components/notifications/prefsErrors';
import { channelRequest, emptyChannelForm, missingField, shownFields, type ChannelForm } from '../../../notifications/channelForm';
import { channelLabel, refusalOf, type ChannelField, type FieldProblem } from '../../../notifications/channelWords';
import { useCreateChannel } from '../../../queries/channels';
import { globalPreferencesQuery, useSaveGlobalPreferences } from '../../../queries/notifications';
import { FieldError, KindFields, TextField } from './ChannelFields';
import { TelegramLink } from './TelegramLink';

/** What adding did: the channel as answered once, and whether it joined the delivery methods. */
interface Added {
  created: CreatedChannel;
  /** null: not asked; else what adding it to the delivery methods came to. */
  methods: { ok: true } | { ok: false; reason: string } | null;
}

/**
 * Settings → Notifications → Add channel: a kind, that kind's settings (each with where to
 * find it), and "Use for reminders". Then, once: a webhook's signing secret, a Telegram link.
 */
export function AddChannelDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation('notifyPrefs');
  const [form, setForm] = useState<ChannelForm>(emptyChannelForm);
  const [problem, setProblem] = useState<FieldProblem | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [added, setAdded] = useState<Added | null>(null);
  const create = useCreateChannel();
  const savePrefs = useSaveGlobalPreferences();
  const client = useQueryClient();
  const formId = useId();

  const change = (changes: Partial<ChannelForm>) => setForm((current) => ({ ...current, ...changes }));

  /** Adds the channel to the general settings' methods, as the preferences dialog saves them. */
  const addToReminders = async (created: CreatedChannel): Promise<Added['methods']> => {
    try {
      const current = (await client.query({ ...globalPreferencesQuery, staleTime: 0 })).default_delivery_methods;
      if (!current.includes(created.channel.method)) {
        await savePrefs.mutateAsync({ default_delivery_methods: [...current, created.channel.method] });
      }
      return { ok: true };
    } catch (caught) {
      return { ok: false, reason: prefsErrorText(t, caught, 'errors.save') };
    }
  };

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setError(null);
    const missing = missingField(form);
    if (missing) {
      setProblem({ field: missing, text: t(`channels.errors.field.${missing}`) });
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      const created = await create.mutateAsync(channelRequest(form));
      const methods = form.useForReminders ? await addToReminders(created) : null;
      setAdded({ created, methods });
    } catch (caught) {
      const refusal = refusalOf(t, caught, shownFields(form), t('channels.errors.add'));
      setProblem(refusal?.problem ?? null);
      setError(refusal ? refusal.error : prefsErrorText(t, caught, 'channels.errors.add'));
    } finally {
      setBusy(false);
    }
  };

  if (added) return <AddedDialog added={added} onClose={onClose} />;

  const fieldProps = (field: ChannelField) => ({ field, problem });

  return (
    <Dialog
      title={t('channels.addTitle')}
      onClose={busy ? undefined : onClose}
      className="prefs-dialog channel-dialog"
      actions={
        <>
          <button type="submit" form={formId} className="button button-primary" disabled={busy}>
            {busy ? t('channels.adding') : t('channels.submit')}
          </button>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('channels.cancel')}
          </button>
        </>
      }
    >
      <form id={formId} className="form form-tight prefs-form" noValidate onSubmit={(e) => void submit(e)}>
        <FormError text={error} />
        <fieldset className="choice-group" aria-describedby={problem?.field === 'kind' ? `${formId}-kind-error` : undefined}>
          <legend>{t('channels.kindLegend')}</legend>
          {CHANNEL_KINDS.map((kind) => (
            <label key={kind} className="choice channel-kind">
              <input
                type="radio"
                name={`${formId}-kind`}
                value={kind}
                checked={form.kind === kind}
                onChange={() => {
                  setProblem(null);
                  change({ kind });
                }}
              />
              <span className="switch-text">
                <span className="switch-label">{t(`channels.kind.${kind}`)}</span>
                <span className="field-hint">{t(`channels.kindHint.${kind}`)}</span>
              </span>
            </label>
          ))}
          <FieldError id={`${formId}-kind-error`} {...fieldProps('kind')} />
        </fieldset>

        <TextField
          id={`${formId}-name`}
          label={t('channels.fields.name')}
          hint={t('channels.fields.nameHint')}
          value={form.name}
          placeholder={t(`channels.kind.${form.kind}`)}
          onChange={(name) => change({ name })}
          {...fieldProps('name')}
        />

        <KindFields form={form} formId={formId} problem={problem} onChange={change} />

        <label className="prefs-check">
          <input
            type="checkbox"
            checked={form.useForReminders}
            onChange={(event) => change({ useForReminders: event.target.checked })}
          />
          <span className="switch-text">
            <span className="switch-label">{t('channels.useForReminders')}</span>
            <span className="field-hint">{t('channels.useForRemindersHint')}</span>
          </span>
        </label>
      </form>
    </Dialog>
  );
}

/** After adding: what happened, and what is shown only now (a secret, a Telegram link). */
function AddedDialog({ added, onClose }: { added: Added; onClose: () => void }) {
  const { t } = useTranslation('notifyPrefs');
  const { channel, secret, link_url } = added.created;
  const label = channelLabel(t, channel.name, channel.kind);
  const secretId = useId();
  let outcome: ReactNode;
  if (added.methods?.ok === false) {
    outcome = (
      <p className="form-error" role="alert">
        {t('channels.methodsFailed', { name: label, reason: added.methods.reason })}
      </p>
    );
  } else {
    outcome = (
      <p className="form-success" role="status" data-testid="channel-added">
        {added.methods?.ok
          ? // A Telegram chat not linked yet takes no reminders until it is.
            t(channel.state === 'pending' ? 'channels.addedForRemindersOnceLinked' : 'channels.addedForReminders', { name: label })
          : t('channels.added', { name: label })}
      </p>
    );
  }
  return (
    <Dialog
      title={t('channels.addTitle')}
      onClose={onClose}
      className="prefs-dialog channel-dialog"
      actions={
        <button type="button" className="button button-primary" onClick={onClose} data-autofocus>
          {t('channels.done')}
        </button>
      }
    >
      <div className="form form-tight prefs-form">
        {outcome}
        {secret && (
          <div className="field" data-testid="channel-secret">
            <label htmlFor={secretId}>{t('channels.secret')}</label>
            <input
              id={secretId}
              className="calendar-feed-url"
              readOnly
              value={secret}
              onFocus={(event) => event.target.select()}
            />
            <p className="prefs-note" role="note">
              {t('channels.secretWarning')}
            </p>
            <div>
              <CopyButton text={secret} label={t('channels.copySecret')} />
            </div>
          </div>
        )}
        {link_url && (
          <>
            <p className="prefs-note">{t('channels.telegramNext')}</p>
            <TelegramLink url={link_url} />
          </>
        )}
      </div>
    </Dialog>
  );
}

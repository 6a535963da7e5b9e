import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { CHANNEL_KINDS, WEBHOOK_EVENTS, type CreatedChannel } from '../../../api/channels';
import { CopyButton } from '../../../components/CopyButton';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/medications/FormError';
import { prefsErrorText } from '../../../components/notifications/prefsErrors';
import {
  channelRequest,
  emptyChannelForm,
  eventKey,
  missingField,
  shownFields,
  type ChannelForm,
  type NtfyAccess,
} from '../../../notifications/channelForm';
import { channelLabel, fieldProblemOf, type ChannelField, type FieldProblem } from '../../../notifications/channelWords';
import { useCreateChannel } from '../../../queries/channels';
import { globalPreferencesQuery, useSaveGlobalPreferences } from '../../../queries/notifications';
import { TelegramLink } from './TelegramLink';

const NTFY_ACCESS: readonly NtfyAccess[] = ['none', 'token', 'password'];

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
      const onField = fieldProblemOf(t, caught);
      // A setting the form does not show (a newer server's) is said above the form instead.
      if (onField && shownFields(form).includes(onField.field)) setProblem(onField);
      else if (onField) setError(t('errors.withReason', { error: t('channels.errors.add'), reason: onField.text }));
      else setError(prefsErrorText(t, caught, 'channels.errors.add'));
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

interface KindFieldsProps {
  form: ChannelForm;
  formId: string;
  problem: FieldProblem | null;
  onChange: (changes: Partial<ChannelForm>) => void;
}

/** The settings of the chosen kind, each with a line on where to find it. */
function KindFields({ form, formId, problem, onChange }: KindFieldsProps) {
  const { t } = useTranslation('notifyPrefs');
  const id = (field: string) => `${formId}-${form.kind}-${field}`;
  switch (form.kind) {
    case 'ntfy': {
      const ntfy = form.ntfy;
      const set = (changes: Partial<ChannelForm['ntfy']>) => onChange({ ntfy: { ...ntfy, ...changes } });
      return (
        <>
          <TextField
            id={id('server')}
            label={t('channels.fields.serverUrl')}
            hint={t('channels.fields.ntfyServerHint')}
            type="url"
            value={ntfy.server_url}
            onChange={(server_url) => set({ server_url })}
            field="server_url"
            problem={problem}
          />
          <TextField
            id={id('topic')}
            label={t('channels.fields.topic')}
            hint={t('channels.fields.topicHint')}
            value={ntfy.topic}
            onChange={(topic) => set({ topic })}
            field="topic"
            problem={problem}
          />
          <div className="field">
            <label htmlFor={id('access')}>{t('channels.fields.auth')}</label>
            <select
              id={id('access')}
              value={ntfy.access}
              onChange={(event) => set({ access: NTFY_ACCESS.find((a) => a === event.target.value) ?? 'none' })}
            >
              <option value="none">{t('channels.fields.authNone')}</option>
              <option value="token">{t('channels.fields.authToken')}</option>
              <option value="password">{t('channels.fields.authPassword')}</option>
            </select>
          </div>
          {ntfy.access === 'token' && (
            <TextField
              id={id('token')}
              label={t('channels.fields.token')}
              hint={t('channels.fields.ntfyTokenHint')}
              value={ntfy.token}
              secret
              onChange={(token) => set({ token })}
              field="token"
              problem={problem}
            />
          )}
          {ntfy.access === 'password' && (
            <>
              <TextField
                id={id('username')}
                label={t('channels.fields.username')}
                value={ntfy.username}
                onChange={(username) => set({ username })}
                field="username"
                problem={problem}
              />
              <TextField
                id={id('password')}
                label={t('channels.fields.password')}
                hint={t('channels.fields.passwordHint')}
                value={ntfy.password}
                secret
                onChange={(password) => set({ password })}
                field="password"
                problem={problem}
              />
            </>
          )}
        </>
      );
    }
    case 'gotify': {
      const gotify = form.gotify;
      const set = (changes: Partial<ChannelForm['gotify']>) => onChange({ gotify: { ...gotify, ...changes } });
      return (
        <>
          <TextField
            id={id('server')}
            label={t('channels.fields.serverUrl')}
            hint={t('channels.fields.gotifyServerHint')}
            type="url"
            value={gotify.server_url}
            onChange={(server_url) => set({ server_url })}
            field="server_url"
            problem={problem}
          />
          <TextField
            id={id('token')}
            label={t('channels.fields.gotifyToken')}
            hint={t('channels.fields.gotifyTokenHint')}
            value={gotify.token}
            secret
            onChange={(token) => set({ token })}
            field="token"
            problem={problem}
          />
        </>
      );
    }
    case 'webhook': {
      const webhook = form.webhook;
      const set = (changes: Partial<ChannelForm['webhook']>) => onChange({ webhook: { ...webhook, ...changes } });
      const errorId = `${id('events')}-error`;
      return (
        <>
          <TextField
            id={id('url')}
            label={t('channels.fields.url')}
            hint={t('channels.fields.urlHint')}
            type="url"
            value={webhook.url}
            onChange={(url) => set({ url })}
            field="url"
            problem={problem}
          />
          <fieldset
            className="choice-group prefs-methods"
            aria-describedby={`${id('events')}-hint${problem?.field === 'events' ? ` ${errorId}` : ''}`}
          >
            <legend>{t('channels.fields.events')}</legend>
            <p id={`${id('events')}-hint`} className="field-hint">
              {t('channels.fields.eventsHint')}
            </p>
            {WEBHOOK_EVENTS.map((event) => (
              <label key={event} className="prefs-check">
                <input
                  type="checkbox"
                  checked={webhook.events.includes(event)}
                  onChange={(e) =>
                    set({
                      events: WEBHOOK_EVENTS.filter((x) => (x === event ? e.target.checked : webhook.events.includes(x))),
                    })
                  }
                />
                <span>{t(eventKey(event))}</span>
              </label>
            ))}
            <FieldError id={errorId} field="events" problem={problem} />
          </fieldset>
        </>
      );
    }
    case 'telegram':
      return <p className="prefs-note">{t('channels.fields.telegramHint')}</p>;
  }
}

interface FieldErrorProps {
  id: string;
  field: ChannelField;
  problem: FieldProblem | null;
}

/** The server's (or the form's) word on one setting, beside it. */
function FieldError({ id, field, problem }: FieldErrorProps) {
  if (problem?.field !== field) return null;
  return (
    <p id={id} className="field-error" role="alert" data-testid={`channel-error-${field}`}>
      {problem.text}
    </p>
  );
}

interface TextFieldProps {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onChange: (value: string) => void;
  field: ChannelField;
  problem: FieldProblem | null;
  type?: 'text' | 'url';
  placeholder?: string;
  /** A token or password: not shown while typed, never offered by the browser's autofill. */
  secret?: boolean;
}

function TextField({ id, label, hint, value, onChange, field, problem, type = 'text', placeholder, secret }: TextFieldProps) {
  const invalid = problem?.field === field;
  const describedBy = [hint ? `${id}-hint` : '', invalid ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={secret ? 'password' : type}
        value={value}
        placeholder={placeholder}
        autoComplete={secret ? 'new-password' : 'off'}
        spellCheck={false}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy || undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {hint && (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} field={field} problem={problem} />
    </div>
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
        {added.methods?.ok ? t('channels.addedForReminders', { name: label }) : t('channels.added', { name: label })}
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

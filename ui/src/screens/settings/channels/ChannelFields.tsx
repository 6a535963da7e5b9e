// The fields of the channel forms, shared by adding a channel and changing its settings: each
// kind's settings with a line on where to find them, and the server's word beside the one it
// refused.
import { useTranslation } from '../../../i18n/useTranslation';
import { WEBHOOK_EVENTS } from '../../../api/channels';
import { eventKey, type ChannelForm, type KeptSecret, type NtfyAccess } from '../../../notifications/channelForm';
import type { ChannelField, FieldProblem } from '../../../notifications/channelWords';

const NTFY_ACCESS: readonly NtfyAccess[] = ['none', 'token', 'password'];

interface KindFieldsProps {
  form: ChannelForm;
  formId: string;
  problem: FieldProblem | null;
  onChange: (changes: Partial<ChannelForm>) => void;
  /** Changing a saved channel: the secret it keeps when its field is left empty. */
  kept?: KeptSecret;
}

/**
 * The settings of the chosen kind, each with a line on where to find it. A secret the channel
 * keeps says so instead; an ntfy token kept can be removed.
 */
export function KindFields({ form, formId, problem, onChange, kept = null }: KindFieldsProps) {
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
            <>
              <TextField
                id={id('token')}
                label={t('channels.fields.token')}
                hint={t(kept === 'token' ? 'channels.fields.keepToken' : 'channels.fields.ntfyTokenHint')}
                value={ntfy.token}
                secret
                disabled={kept === 'token' && ntfy.removeToken}
                onChange={(token) => set({ token })}
                field="token"
                problem={problem}
              />
              {kept === 'token' && (
                <label className="prefs-check">
                  <input
                    type="checkbox"
                    checked={ntfy.removeToken}
                    onChange={(event) => set({ removeToken: event.target.checked })}
                  />
                  <span className="switch-text">
                    <span className="switch-label">{t('channels.fields.removeToken')}</span>
                    <span className="field-hint">{t('channels.fields.removeTokenHint')}</span>
                  </span>
                </label>
              )}
            </>
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
                hint={t(kept === 'password' ? 'channels.fields.keepPassword' : 'channels.fields.passwordHint')}
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
            hint={t(kept === 'token' ? 'channels.fields.keepToken' : 'channels.fields.gotifyTokenHint')}
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
export function FieldError({ id, field, problem }: FieldErrorProps) {
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
  disabled?: boolean;
}

export function TextField({
  id,
  label,
  hint,
  value,
  onChange,
  field,
  problem,
  type = 'text',
  placeholder,
  secret,
  disabled,
}: TextFieldProps) {
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
        disabled={disabled}
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

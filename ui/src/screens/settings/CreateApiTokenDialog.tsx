import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { CreatedApiToken, TokenScope } from '../../api/tokens';
import { CopyButton } from '../../components/CopyButton';
import { Dialog } from '../../components/Dialog';
import { FormDialogActions } from '../../components/FormDialogActions';
import { NumberField } from '../../components/NumberField';
import { TextField } from '../../components/TextField';
import { errorText } from '../../i18n/messages';
import { usePeopleQuery } from '../../queries/people';
import { useCreateApiToken } from '../../queries/tokens';
import { TOKEN_CODE_KEYS, TOKEN_EXPIRY_MAX_DAYS, TOKEN_EXPIRY_MIN_DAYS, TOKEN_NAME_MAX } from './apiTokenTexts';

const FORM_ID = 'api-token-form';
const SCOPES: TokenScope[] = ['read', 'record', 'manage'];

interface CreateApiTokenDialogProps {
  onClose: () => void;
}

/**
 * Makes an API token: its name, what it may do, optionally whose data and for how long.
 * The secret is shown once, right after, with a copy button.
 */
export function CreateApiTokenDialog({ onClose }: CreateApiTokenDialogProps) {
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  if (created) return <NewTokenShown token={created} onClose={onClose} />;
  return <TokenForm onClose={onClose} onCreated={setCreated} />;
}

function TokenForm({ onClose, onCreated }: { onClose: () => void; onCreated: (token: CreatedApiToken) => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<TokenScope>('read');
  const [limited, setLimited] = useState(false);
  const [personIds, setPersonIds] = useState<number[]>([]);
  const [days, setDays] = useState('');
  const people = usePeopleQuery();
  const create = useCreateApiToken();
  const own = (people.data ?? []).filter((person) => person.role === 'owner');
  const busy = create.isPending;

  const problem = (): string | null => {
    if (name.trim() === '') return t('security:tokens.nameNeeded');
    if (limited && personIds.length === 0) return t('security:tokens.peopleNeeded');
    if (days.trim() !== '') {
      const value = Number(days);
      if (!Number.isInteger(value) || value < TOKEN_EXPIRY_MIN_DAYS || value > TOKEN_EXPIRY_MAX_DAYS) {
        return t('server.apiTokenExpiryInvalid', { min: TOKEN_EXPIRY_MIN_DAYS, max: TOKEN_EXPIRY_MAX_DAYS });
      }
    }
    return null;
  };
  const reason = problem();
  const error = create.error
    ? errorText(t, create.error, 'security:tokens.createFailed', undefined, TOKEN_CODE_KEYS)
    : null;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (reason !== null) return;
    create.mutate(
      {
        name: name.trim(),
        scope,
        person_ids: limited ? personIds : null,
        expires_in_days: days.trim() === '' ? null : Number(days),
      },
      { onSuccess: onCreated },
    );
  };

  return (
    <Dialog
      title={t('security:tokens.createTitle')}
      onClose={busy ? undefined : onClose}
      actions={
        <FormDialogActions
          formId={FORM_ID}
          busy={busy}
          submitLabel={t('security:tokens.createSubmit')}
          busyLabel={t('security:tokens.creating')}
          disabledReason={reason}
          onCancel={onClose}
        />
      }
    >
      <form id={FORM_ID} className="form form-tight" onSubmit={submit}>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <TextField
          id="api-token-name"
          label={t('security:tokens.name')}
          value={name}
          onChange={setName}
          maxLength={TOKEN_NAME_MAX}
          required
          hint={t('security:tokens.nameHint')}
          autoFocus
        />
        <fieldset className="choice-group">
          <legend>{t('security:tokens.scope')}</legend>
          {SCOPES.map((option) => (
            <label key={option} className="choice">
              <input
                type="radio"
                name="api-token-scope"
                value={option}
                checked={scope === option}
                onChange={() => setScope(option)}
              />
              <span>
                {t(`security:tokens.scopes.${option}.name`)}
                <span className="field-hint"> {t(`security:tokens.scopes.${option}.hint`)}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <fieldset className="choice-group">
          <legend>{t('security:tokens.people')}</legend>
          <label className="choice">
            <input type="radio" name="api-token-people" checked={!limited} onChange={() => setLimited(false)} />
            <span>{t('security:tokens.everyoneHint')}</span>
          </label>
          <label className="choice">
            <input type="radio" name="api-token-people" checked={limited} onChange={() => setLimited(true)} />
            <span>{t('security:tokens.onlySome')}</span>
          </label>
          {limited &&
            own.map((person) => (
              <label key={person.id} className="choice choice-nested">
                <input
                  type="checkbox"
                  checked={personIds.includes(person.id)}
                  onChange={(event) =>
                    setPersonIds(
                      event.target.checked ? [...personIds, person.id] : personIds.filter((id) => id !== person.id),
                    )
                  }
                />
                <span>{person.name}</span>
              </label>
            ))}
        </fieldset>
        <NumberField
          id="api-token-days"
          label={t('security:tokens.expiresIn')}
          kind="count"
          min={TOKEN_EXPIRY_MIN_DAYS}
          max={TOKEN_EXPIRY_MAX_DAYS}
          value={days}
          onChange={setDays}
          hint={t('security:tokens.expiresHint', { max: TOKEN_EXPIRY_MAX_DAYS })}
        />
      </form>
    </Dialog>
  );
}

function NewTokenShown({ token, onClose }: { token: CreatedApiToken; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog
      title={t('security:tokens.createdTitle', { name: token.name })}
      actions={
        <button type="button" className="button button-primary" onClick={onClose}>
          {t('security:tokens.done')}
        </button>
      }
    >
      <p className="form-warning" role="status">
        {t('security:tokens.onceOnly')}
      </p>
      <div className="field">
        <label htmlFor="api-token-secret">{t('security:tokens.secret')}</label>
        <input
          id="api-token-secret"
          readOnly
          value={token.token}
          onFocus={(event) => event.target.select()}
          data-testid="api-token-secret"
          data-autofocus
        />
        <span className="field-hint">{t('security:tokens.usage')}</span>
      </div>
      <CopyButton text={token.token} label={t('security:tokens.copy')} />
    </Dialog>
  );
}

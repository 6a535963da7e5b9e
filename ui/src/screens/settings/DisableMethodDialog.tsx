import { useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import * as api from '../../api';
import type { TwoFactorMethod } from '../../api';
import { cleanBackupCode } from '../../auth/backupCode';
import { Dialog } from '../../components/Dialog';
import { DisabledReason, disabledBecause } from '../../components/DisabledReason';
import { errorText } from '../../i18n/messages';


interface DisableMethodDialogProps {
  method: TwoFactorMethod;
  onClose: () => void;
  /** The method is off: this session's new token. */
  onDisabled: (token: string) => void;
}

export function DisableMethodDialog({ method, onClose, onDisabled }: DisableMethodDialogProps) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const trimmed = code.trim();
  const methodName = t(`twoFactor.methodsInline.${method}`);
  const codeNeeded = trimmed === '' ? t('twoFactor.disable.required') : null;

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (trimmed === '') {
      setError(t('twoFactor.disable.required'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const result = await api.disableTwoFactorMethod(method, trimmed);
      onDisabled(result.token);
    } catch (err) {
      setError(errorText(t, err, 'twoFactor.errors.disable', { method: methodName }));
      setBusy(false);
    }
  };

  return (
    <Dialog title={t('twoFactor.disable.title', { method: methodName })} onClose={busy ? undefined : onClose}>
      <form className="form form-tight" onSubmit={(event) => void submit(event)}>
        <p>{t('twoFactor.disable.text', { method: methodName })}</p>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="disable-backup-code">{t('twoFactor.disable.label')}</label>
          <input
            id="disable-backup-code"
            className="mono"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            value={code}
            onChange={(event) => setCode(cleanBackupCode(event.target.value))}
            data-autofocus
          />
        </div>
        <DisabledReason id="disable-code-needed" reason={codeNeeded} />
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button
            type="submit"
            className="button button-danger"
            disabled={busy || trimmed === ''}
            {...disabledBecause('disable-code-needed', codeNeeded)}
          >
            {busy ? t('twoFactor.disable.submitting') : t('twoFactor.disable.submit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

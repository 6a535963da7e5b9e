import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { CodeMethod } from '../../api/types';
import { cleanBackupCode } from '../../auth/backupCode';
import { Dialog } from '../../components/Dialog';
import { FormDialogActions } from '../../components/FormDialogActions';
import { errorText } from '../../i18n/messages';
import { useDisableTwoFactorMethod } from '../../queries/security';

interface DisableMethodDialogProps {
  method: CodeMethod;
  onClose: () => void;
  /** The method is off: this session's new token. */
  onDisabled: (token: string) => void;
}

const FORM_ID = 'disable-method-form';

export function DisableMethodDialog({ method, onClose, onDisabled }: DisableMethodDialogProps) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const disable = useDisableTwoFactorMethod();
  const busy = disable.isPending;
  // Checked here before sending; what the server refused comes from the mutation.
  const [blankError, setBlankError] = useState(false);
  const trimmed = code.trim();
  const methodName = t(`twoFactor.methodsInline.${method}`);
  const codeNeeded = trimmed === '' ? t('twoFactor.disable.required') : null;

  const error = blankError
    ? t('twoFactor.disable.required')
    : disable.error
      ? errorText(t, disable.error, 'twoFactor.errors.disable', { method: methodName })
      : null;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (trimmed === '') {
      setBlankError(true);
      return;
    }
    setBlankError(false);
    disable.mutate({ method, backupCode: trimmed }, { onSuccess: (result) => onDisabled(result.token) });
  };

  return (
    <Dialog
      title={t('twoFactor.disable.title', { method: methodName })}
      onClose={busy ? undefined : onClose}
      actions={
        <FormDialogActions
          formId={FORM_ID}
          busy={busy}
          submitLabel={t('twoFactor.disable.submit')}
          busyLabel={t('twoFactor.disable.submitting')}
          danger
          disabledReason={codeNeeded}
          onCancel={onClose}
        />
      }
    >
      <form id={FORM_ID} className="form form-tight" onSubmit={submit}>
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
      </form>
    </Dialog>
  );
}

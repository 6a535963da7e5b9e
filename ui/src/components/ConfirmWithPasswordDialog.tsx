import { useState, type ReactNode, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { CurrentPasswordField } from './CurrentPasswordField';
import { Dialog } from './Dialog';
import { FormDialogActions } from './FormDialogActions';

interface ConfirmWithPasswordDialogProps {
  title: string;
  /** The password field's id; the form's is `${passwordId}-form`. */
  passwordId: string;
  /** What the change does, above the form's error. */
  children: ReactNode;
  /** Fields asked before the password (the word typed to delete the account); they take the first focus. */
  fields?: ReactNode;
  /** Why the button waits for those fields, or null once they are filled in. */
  fieldsMissing?: string | null;
  submitLabel: string;
  busyLabel: string;
  /** A change that cannot be undone: the button (and the dialog, with `dialog-danger`) in red. */
  danger?: boolean;
  busy: boolean;
  error: string | null;
  onConfirm: (password: string) => void;
  onClose: () => void;
}

/**
 * The account password asked again before a change a stolen session token must not make on
 * its own (two-factor set-up, new backup codes, deleting the account). The password lives
 * in this dialog's state only, so it is gone when the dialog closes.
 */
export function ConfirmWithPasswordDialog({
  title,
  passwordId,
  children,
  fields,
  fieldsMissing = null,
  submitLabel,
  busyLabel,
  danger = false,
  busy,
  error,
  onConfirm,
  onClose,
}: ConfirmWithPasswordDialogProps) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const missing = fieldsMissing ?? (password === '' ? t('common.passwordNeeded') : null);
  const formId = `${passwordId}-form`;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (missing === null) onConfirm(password);
  };

  return (
    <Dialog
      title={title}
      onClose={busy ? undefined : onClose}
      className={danger ? 'dialog-danger' : undefined}
      actions={
        <FormDialogActions
          formId={formId}
          busy={busy}
          submitLabel={submitLabel}
          busyLabel={busyLabel}
          danger={danger}
          disabledReason={missing}
          onCancel={onClose}
        />
      }
    >
      <form id={formId} className="form form-tight" onSubmit={submit}>
        {children}
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        {fields}
        <CurrentPasswordField id={passwordId} value={password} onChange={setPassword} autoFocus={fields === undefined} />
      </form>
    </Dialog>
  );
}

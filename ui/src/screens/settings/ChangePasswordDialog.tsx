import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { useAuth } from '../../auth/AuthContext';
import { passwordProblem } from '../../auth/passwordRules';
import { Dialog } from '../../components/Dialog';
import { FormDialogActions } from '../../components/FormDialogActions';
import { NewPasswordFields } from '../../components/NewPasswordFields';
import { errorText, type CodeKeys } from '../../i18n/messages';
import { useChangePassword } from '../../queries/security';

/** Here the wrong password is the current one. */
const CURRENT_PASSWORD: CodeKeys = { password_incorrect: 'server.wrongCurrentPassword' };

const FORM_ID = 'change-password-form';

interface ChangePasswordDialogProps {
  onClose: () => void;
  onChanged: () => void;
}

/** The spec leaves the Change Password action open; this is it. */
export function ChangePasswordDialog({ onClose, onChanged }: ChangePasswordDialogProps) {
  const { t } = useTranslation();
  const { replaceToken, updateUser } = useAuth();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirmation, setConfirmation] = useState('');
  // What is wrong with the new password typed, found before anything is sent.
  const [problem, setProblem] = useState<string | null>(null);
  const change = useChangePassword();
  const busy = change.isPending;
  const error = problem
    ? t(problem)
    : change.error
      ? errorText(t, change.error, 'settings.security.password.failed', undefined, CURRENT_PASSWORD)
      : null;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = passwordProblem(next, confirmation);
    setProblem(found);
    if (found) return;
    change.mutate(
      { current, next },
      {
        onSuccess: (session) => {
          // Every other session is signed out; this one continues with the new token.
          replaceToken(session.token);
          updateUser(session.user);
          onChanged();
        },
      },
    );
  };

  return (
    <Dialog
      title={t('settings.security.password.title')}
      onClose={busy ? undefined : onClose}
      actions={
        <FormDialogActions
          formId={FORM_ID}
          busy={busy}
          submitLabel={t('settings.security.password.submit')}
          onCancel={onClose}
        />
      }
    >
      <form id={FORM_ID} className="form form-tight" onSubmit={submit}>
        <p>{t('settings.security.password.text')}</p>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="password-current">{t('settings.security.password.current')}</label>
          <input
            id="password-current"
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(event) => setCurrent(event.target.value)}
            data-autofocus
          />
        </div>
        <NewPasswordFields
          idPrefix="new"
          passwordLabel={t('settings.security.password.new')}
          confirmLabel={t('settings.security.password.confirm')}
          password={next}
          confirmation={confirmation}
          onPasswordChange={setNext}
          onConfirmationChange={setConfirmation}
        />
      </form>
    </Dialog>
  );
}

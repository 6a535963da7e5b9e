import { useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import * as api from '../../api';
import { useAuth } from '../../auth/AuthContext';
import { Dialog } from '../../components/Dialog';
import { errorText, type CodeKeys } from '../../i18n/messages';
import { passwordProblem } from '../RegisterScreen';

/** Here the wrong password is the current one. */
const CURRENT_PASSWORD: CodeKeys = { password_incorrect: 'server.wrongCurrentPassword' };

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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = passwordProblem(next, confirmation);
    if (problem) {
      setError(t(problem));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // Every other session is signed out; this one continues with the new token.
      const session = await api.changePassword(current, next);
      replaceToken(session.token);
      updateUser(session.user);
      onChanged();
    } catch (err) {
      setError(errorText(t, err, 'settings.security.password.failed', undefined, CURRENT_PASSWORD));
      setBusy(false);
    }
  };

  return (
    <Dialog title={t('settings.security.password.title')} onClose={busy ? undefined : onClose}>
      <form className="form form-tight" onSubmit={(event) => void submit(event)}>
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
        <div className="field">
          <label htmlFor="password-new">{t('settings.security.password.new')}</label>
          <input
            id="password-new"
            type="password"
            autoComplete="new-password"
            required
            value={next}
            onChange={(event) => setNext(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="password-confirm">{t('settings.security.password.confirm')}</label>
          <input
            id="password-confirm"
            type="password"
            autoComplete="new-password"
            required
            value={confirmation}
            onChange={(event) => setConfirmation(event.target.value)}
          />
        </div>
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? t('common.saving') : t('settings.security.password.submit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

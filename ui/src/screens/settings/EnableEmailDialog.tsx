import { useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import * as api from '../../api';
import type { TwoFactorEnabled } from '../../api';
import { Dialog } from '../../components/Dialog';
import { DisabledReason, disabledBecause } from '../../components/DisabledReason';
import { errorText } from '../../i18n/messages';
import { CurrentPasswordField } from './CurrentPasswordField';

interface EnableEmailDialogProps {
  email: string;
  onClose: () => void;
  /** E-mail codes are on: the backup codes and this session's new token. */
  onEnabled: (result: TwoFactorEnabled) => void;
}

/** Turning on e-mail codes, confirmed with the account password. */
export function EnableEmailDialog({ email, onClose, onEnabled }: EnableEmailDialogProps) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const passwordNeeded = password === '' ? t('common.passwordNeeded') : null;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (password === '') return;
    setBusy(true);
    setError(null);
    try {
      onEnabled(await api.setupEmailTwoFactor(password));
    } catch (err) {
      setError(errorText(t, err, 'twoFactor.errors.setupEmail'));
      setBusy(false);
    }
  };

  return (
    <Dialog title={t('twoFactor.email.enableTitle')} onClose={busy ? undefined : onClose}>
      <form className="form form-tight" onSubmit={(event) => void submit(event)}>
        <p>{t('twoFactor.email.enableText', { email })}</p>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <CurrentPasswordField id="email-2fa-password" value={password} onChange={setPassword} autoFocus />
        <DisabledReason id="email-2fa-password-needed" reason={passwordNeeded} />
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button
            type="submit"
            className="button button-primary"
            disabled={busy || password === ''}
            {...disabledBecause('email-2fa-password-needed', passwordNeeded)}
          >
            {busy ? t('twoFactor.enabling') : t('twoFactor.enable')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

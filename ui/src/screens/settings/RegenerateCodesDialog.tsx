import { useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import * as api from '../../api';
import { Dialog } from '../../components/Dialog';
import { DisabledReason, disabledBecause } from '../../components/DisabledReason';
import { errorText } from '../../i18n/messages';
import { CurrentPasswordField } from './CurrentPasswordField';

interface RegenerateCodesDialogProps {
  onClose: () => void;
  /** The new codes; the old ones no longer work. */
  onRegenerated: (codes: string[]) => void;
}

/** New backup codes after asking, confirmed with the account password. */
export function RegenerateCodesDialog({ onClose, onRegenerated }: RegenerateCodesDialogProps) {
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
      onRegenerated(await api.regenerateBackupCodes(password));
    } catch (err) {
      setError(errorText(t, err, 'twoFactor.errors.regenerate'));
      setBusy(false);
    }
  };

  return (
    <Dialog title={t('twoFactor.backupCodes.regenerateTitle')} onClose={busy ? undefined : onClose}>
      <form className="form form-tight" onSubmit={(event) => void submit(event)}>
        <p>{t('twoFactor.backupCodes.regenerateText')}</p>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <CurrentPasswordField id="regenerate-password" value={password} onChange={setPassword} autoFocus />
        <DisabledReason id="regenerate-password-needed" reason={passwordNeeded} />
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button
            type="submit"
            className="button button-primary"
            disabled={busy || password === ''}
            {...disabledBecause('regenerate-password-needed', passwordNeeded)}
          >
            {busy ? t('twoFactor.backupCodes.regenerating') : t('twoFactor.backupCodes.regenerateConfirm')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

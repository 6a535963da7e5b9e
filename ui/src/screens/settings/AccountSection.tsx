import { useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import * as api from '../../api';
import { useAuth } from '../../auth/AuthContext';
import { Dialog } from '../../components/Dialog';
import { DisabledReason, disabledBecause } from '../../components/DisabledReason';
import { SignOutIcon } from '../../components/icons';
import { errorText } from '../../i18n/messages';
import { CurrentPasswordField } from './CurrentPasswordField';
import { SectionHeading } from './SectionHeading';

/** The word to type before the account can be deleted (spec §5), in every language. */
export const DELETE_CONFIRMATION = 'DELETE';

export function DeleteAccountDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { logout } = useAuth();
  const [typed, setTyped] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Both: the word against a slip of the hand, the password against a stolen session.
  const confirmed = typed === DELETE_CONFIRMATION && password !== '';
  const missing =
    typed !== DELETE_CONFIRMATION
      ? t('settings.account.typeDeleteNeeded', { word: DELETE_CONFIRMATION })
      : password === ''
        ? t('common.passwordNeeded')
        : null;

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!confirmed) return;
    setBusy(true);
    setError(null);
    try {
      await api.deleteAccount(password);
      logout();
      void navigate('/login', { replace: true });
    } catch (err) {
      setError(errorText(t, err, 'settings.account.deleteFailed'));
      setBusy(false);
    }
  };

  return (
    <Dialog title={t('settings.account.deleteTitle')} onClose={busy ? undefined : onClose} className="dialog-danger">
      <form className="form form-tight" onSubmit={(event) => void submit(event)}>
        <p>{t('settings.account.deleteWarning')}</p>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="delete-confirmation">{t('settings.account.typeDelete', { word: DELETE_CONFIRMATION })}</label>
          <input
            id="delete-confirmation"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            data-autofocus
          />
        </div>
        <CurrentPasswordField id="delete-password" value={password} onChange={setPassword} />
        <DisabledReason id="delete-account-needed" reason={missing} />
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button
            type="submit"
            className="button button-danger"
            disabled={!confirmed || busy}
            {...disabledBecause('delete-account-needed', missing)}
          >
            {busy ? t('settings.account.deleting') : t('settings.account.deleteConfirm')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Ends every session of the account, this device's too, after a confirmation. */
export function SignOutEverywhereDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { logout } = useAuth();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.logoutAll();
      logout();
      void navigate('/login', { replace: true });
    } catch (err) {
      setError(errorText(t, err, 'settings.account.signOutAllFailed'));
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={t('settings.account.signOutAllTitle')}
      onClose={busy ? undefined : onClose}
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button type="button" className="button button-danger" onClick={() => void confirm()} disabled={busy} data-autofocus>
            {busy ? t('settings.account.signingOutAll') : t('settings.account.signOutAllConfirm')}
          </button>
        </>
      }
    >
      <p>{t('settings.account.signOutAllWarning')}</p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}

export function AccountSection() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { logout } = useAuth();
  const [deleting, setDeleting] = useState(false);
  const [endingAll, setEndingAll] = useState(false);

  const signOut = () => {
    logout();
    void navigate('/login', { replace: true });
  };

  return (
    <>
      <SectionHeading title={t('settings.sections.account')} />
      <section className="card" aria-labelledby="account-status-title">
        <h3 id="account-status-title">{t('settings.account.statusTitle')}</h3>
        <dl className="detail-list">
          <div>
            <dt>{t('settings.account.status')}</dt>
            <dd>
              <span className="badge badge-on">{t('settings.account.active')}</span>
            </dd>
          </div>
        </dl>
        <p className="card-text">{t('settings.account.signOutAllText')}</p>
        <div className="button-row">
          <button type="button" className="button button-secondary" onClick={signOut}>
            <SignOutIcon />
            <span>{t('nav.signOut')}</span>
          </button>
          <button type="button" className="button button-secondary" onClick={() => setEndingAll(true)}>
            {t('settings.account.signOutAll')}
          </button>
        </div>
      </section>

      <section className="card card-danger" aria-labelledby="danger-zone-title">
        <h3 id="danger-zone-title">{t('settings.account.dangerZone')}</h3>
        <p className="card-text">{t('settings.account.deleteText')}</p>
        <div className="button-row">
          <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
            {t('settings.account.deleteButton')}
          </button>
        </div>
      </section>

      {deleting && <DeleteAccountDialog onClose={() => setDeleting(false)} />}
      {endingAll && <SignOutEverywhereDialog onClose={() => setEndingAll(false)} />}
    </>
  );
}

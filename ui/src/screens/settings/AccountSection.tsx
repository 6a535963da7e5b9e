import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { useNavigate } from 'react-router-dom';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmWithPasswordDialog } from '../../components/ConfirmWithPasswordDialog';
import { Dialog } from '../../components/Dialog';
import { SignOutIcon } from '../../components/icons';
import { errorText } from '../../i18n/messages';
import { useDeleteAccount, useSignOutEverywhere } from '../../queries/security';
import { SectionHeading } from './SectionHeading';

/** The word to type before the account can be deleted (spec §5), in every language. */
export const DELETE_CONFIRMATION = 'DELETE';

export function DeleteAccountDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { logout } = useAuth();
  const [typed, setTyped] = useState('');
  const remove = useDeleteAccount();
  // Both: the word against a slip of the hand, the password against a stolen session.
  const wordMissing =
    typed !== DELETE_CONFIRMATION ? t('settings.account.typeDeleteNeeded', { word: DELETE_CONFIRMATION }) : null;

  return (
    <ConfirmWithPasswordDialog
      title={t('settings.account.deleteTitle')}
      passwordId="delete-password"
      danger
      fields={
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
      }
      fieldsMissing={wordMissing}
      submitLabel={t('settings.account.deleteConfirm')}
      busyLabel={t('settings.account.deleting')}
      busy={remove.isPending || remove.isSuccess}
      error={remove.error ? errorText(t, remove.error, 'settings.account.deleteFailed') : null}
      onConfirm={(password) =>
        remove.mutate(password, {
          onSuccess: () => {
            logout();
            void navigate('/login', { replace: true });
          },
        })
      }
      onClose={onClose}
    >
      <p>{t('settings.account.deleteWarning')}</p>
    </ConfirmWithPasswordDialog>
  );
}

/** Ends every session of the account, this device's too, after a confirmation. */
export function SignOutEverywhereDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { logout } = useAuth();
  const signOutAll = useSignOutEverywhere();
  const busy = signOutAll.isPending || signOutAll.isSuccess;

  const confirm = () => {
    signOutAll.mutate(undefined, {
      onSuccess: () => {
        logout();
        void navigate('/login', { replace: true });
      },
    });
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
          <button type="button" className="button button-danger" onClick={confirm} disabled={busy} data-autofocus>
            {busy ? t('settings.account.signingOutAll') : t('settings.account.signOutAllConfirm')}
          </button>
        </>
      }
    >
      <p>{t('settings.account.signOutAllWarning')}</p>
      {signOutAll.error && (
        <p className="form-error" role="alert">
          {errorText(t, signOutAll.error, 'settings.account.signOutAllFailed')}
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

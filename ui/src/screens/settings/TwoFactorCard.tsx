import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { TWO_FACTOR_METHODS, type CodeMethod, type TwoFactorEnabled, type TwoFactorMethod } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { BackupCodesDialog } from '../../components/BackupCodes';
import { DisabledReason, disabledBecause } from '../../components/DisabledReason';
import { FlashMessage } from '../../components/FlashMessage';
import { MailIcon, PhoneIcon } from '../../components/icons';
import { useFlash } from '../../components/useFlash';
import { errorText } from '../../i18n/messages';
import { useTwoFactorStatusQuery } from '../../queries/account';
import { useSetTwoFactorPreference } from '../../queries/security';
import { DisableMethodDialog } from './DisableMethodDialog';
import { EnableEmailDialog } from './EnableEmailDialog';
import { RegenerateCodesDialog } from './RegenerateCodesDialog';
import { TotpSetupDialog } from './TotpSetupDialog';

type OpenDialog =
  | { kind: 'email' }
  | { kind: 'totp' }
  | { kind: 'disable'; method: CodeMethod }
  | { kind: 'regenerate' }
  | { kind: 'codes'; title: string; intro: string; codes: string[] }
  | null;

const METHOD_ICONS = { email: MailIcon, totp: PhoneIcon } as const;
const SAVING_ID = 'two-factor-preference-saving';

/**
 * Two-factor management (spec §2 "Two-factor management dialogs", §4 "Two-factor"). Every
 * change is followed by a fresh status; changes that sign out other sessions hand this one
 * a new token, which is stored before anything else is asked.
 */
export function TwoFactorCard() {
  const { t } = useTranslation();
  const { user, replaceToken } = useAuth();
  const query = useTwoFactorStatusQuery();
  const status = query.data ?? null;
  // Kept as the error itself, so its text follows a language change.
  const loadError: unknown = query.error;
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const savePreference = useSetTwoFactorPreference();
  const busy = savePreference.isPending;
  const [flash, showFlash] = useFlash();
  // While the default method is saved, the card's other changes wait, and say so.
  const savingPreference = busy ? t('twoFactor.preference.saving') : null;

  // Every change is followed by a fresh status (asked with the new token, stored first).
  const reload = async () => {
    await query.refetch();
  };

  const methodName = (method: TwoFactorMethod) => t(`twoFactor.methods.${method}`);

  const onEmailEnabled = (result: TwoFactorEnabled) => {
    replaceToken(result.token);
    setDialog({
      kind: 'codes',
      title: t('twoFactor.email.enabledTitle'),
      intro: t('twoFactor.email.enabled'),
      codes: result.backupCodes,
    });
    void reload();
  };

  const choosePreference = async (preference: TwoFactorMethod) => {
    try {
      await savePreference.mutateAsync(preference);
      showFlash('success', t('twoFactor.preference.saved', { method: methodName(preference) }));
    } catch (error) {
      showFlash('error', errorText(t, error, 'twoFactor.errors.preference'));
    }
    await reload();
  };

  const onRegenerated = (codes: string[]) => {
    setDialog({
      kind: 'codes',
      title: t('twoFactor.backupCodes.newTitle'),
      intro: t('twoFactor.backupCodes.newIntro'),
      codes,
    });
    void reload();
  };

  const onTokenChanged = (token: string) => {
    replaceToken(token);
    void reload();
  };

  const methods = status?.methods ?? [];
  const enabled = methods.length > 0;

  return (
    <section className="card" aria-labelledby="two-factor-title">
      <div className="card-title-row">
        <h3 id="two-factor-title">{t('twoFactor.title')}</h3>
        {status && (
          <span className={enabled ? 'badge badge-on' : 'badge'} data-testid="two-factor-state">
            {enabled ? t('twoFactor.on') : t('twoFactor.off')}
          </span>
        )}
      </div>
      <p className="card-text">{t('twoFactor.description')}</p>
      <FlashMessage flash={flash} />
      {loadError !== null && (
        <div className="form-error" role="alert">
          <p>{errorText(t, loadError, 'twoFactor.errors.load')}</p>
          <button type="button" className="button-link" onClick={() => void reload()}>
            {t('common.retry')}
          </button>
        </div>
      )}
      {!status && loadError === null && <p className="muted">{t('common.loading')}</p>}

      {status && (
        <>
          <ul className="method-list">
            {TWO_FACTOR_METHODS.map((method) => {
              const on = methods.includes(method);
              const Icon = METHOD_ICONS[method];
              const emailUnavailable = method === 'email' && !on && !status.emailAvailable;
              const descriptionId = `two-factor-${method}-description`;
              return (
                <li key={method} className="method" data-testid={`method-${method}`}>
                  <span className="method-icon" aria-hidden="true">
                    <Icon />
                  </span>
                  <div className="method-text">
                    <p className="method-name">
                      {methodName(method)}
                      <span className={on ? 'badge badge-on' : 'badge'}>{on ? t('twoFactor.on') : t('twoFactor.off')}</span>
                      {on && status.preference === method && methods.length > 1 && (
                        <span className="badge">{t('twoFactor.preference.default')}</span>
                      )}
                    </p>
                    <p className="field-hint" id={descriptionId}>
                      {method === 'email'
                        ? t('twoFactor.email.description', { email: user?.email ?? '' })
                        : t('twoFactor.totp.description')}
                    </p>
                    {emailUnavailable && (
                      <p className="field-hint warning-text" id={`${descriptionId}-unavailable`}>
                        {t('twoFactor.email.unavailable')}
                      </p>
                    )}
                  </div>
                  <div className="method-action">
                    {on ? (
                      <button
                        type="button"
                        className="button button-secondary"
                        aria-describedby={descriptionId}
                        onClick={() => setDialog({ kind: 'disable', method })}
                      >
                        {t('twoFactor.turnOff')}
                      </button>
                    ) : (
                      <button
                        type="button"
                        className="button button-primary"
                        aria-describedby={
                          emailUnavailable
                            ? `${descriptionId} ${descriptionId}-unavailable`
                            : savingPreference
                              ? `${descriptionId} ${SAVING_ID}`
                              : descriptionId
                        }
                        title={emailUnavailable ? t('twoFactor.email.unavailable') : (savingPreference ?? undefined)}
                        disabled={emailUnavailable || busy}
                        onClick={() => setDialog({ kind: method })}
                      >
                        {t('twoFactor.enable')}
                      </button>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>

          {methods.length > 1 && (
            <fieldset className="choice-group subsection">
              <legend>{t('twoFactor.preference.title')}</legend>
              <p className="field-hint">{t('twoFactor.preference.hint')}</p>
              <div className="segmented">
                {methods.map((method) => (
                  <label key={method} className="segment">
                    <input
                      type="radio"
                      name="two-factor-preference"
                      value={method}
                      checked={status.preference === method}
                      disabled={busy}
                      {...disabledBecause(SAVING_ID, savingPreference)}
                      onChange={() => void choosePreference(method)}
                    />
                    <span>{methodName(method)}</span>
                  </label>
                ))}
              </div>
              <DisabledReason id={SAVING_ID} reason={savingPreference} />
            </fieldset>
          )}

          {enabled && (
            <div className="subsection backup-summary">
              <div>
                <h4>{t('twoFactor.backupCodes.title')}</h4>
                <p className="field-hint" data-testid="backup-codes-remaining">
                  {t('twoFactor.backupCodes.remaining', { remaining: status.backupCodesRemaining })}
                </p>
              </div>
              <button
                type="button"
                className="button button-secondary"
                disabled={busy}
                {...disabledBecause(SAVING_ID, savingPreference)}
                onClick={() => setDialog({ kind: 'regenerate' })}
              >
                {t('twoFactor.backupCodes.regenerate')}
              </button>
            </div>
          )}
        </>
      )}

      {dialog?.kind === 'email' && (
        <EnableEmailDialog email={user?.email ?? ''} onClose={() => setDialog(null)} onEnabled={onEmailEnabled} />
      )}
      {dialog?.kind === 'totp' && (
        <TotpSetupDialog onClose={() => setDialog(null)} onEnabled={onTokenChanged} />
      )}
      {dialog?.kind === 'disable' && (
        <DisableMethodDialog
          method={dialog.method}
          onClose={() => setDialog(null)}
          onDisabled={(token) => {
            setDialog(null);
            showFlash('success', t('twoFactor.disable.done', { method: methodName(dialog.method) }));
            onTokenChanged(token);
          }}
        />
      )}
      {dialog?.kind === 'regenerate' && (
        <RegenerateCodesDialog onClose={() => setDialog(null)} onRegenerated={onRegenerated} />
      )}
      {dialog?.kind === 'codes' && (
        <BackupCodesDialog title={dialog.title} intro={dialog.intro} codes={dialog.codes} onClose={() => setDialog(null)} />
      )}
    </section>
  );
}

import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { TotpSetup } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { BackupCodesList } from '../../components/BackupCodes';
import { CodeInput } from '../../components/CodeInput';
import { ConfirmWithPasswordDialog } from '../../components/ConfirmWithPasswordDialog';
import { CopyButton } from '../../components/CopyButton';
import { Dialog } from '../../components/Dialog';
import { EyeIcon, EyeOffIcon } from '../../components/icons';
import { errorText, type CodeKeys } from '../../i18n/messages';
import { useCompleteTotpSetup, useStartTotpSetup } from '../../queries/security';

/** The method already enabled here is the authenticator app. */
const APP_ALREADY_ON: CodeKeys = { method_already_enabled: 'server.totpAlreadyEnabled' };

/** The secret in groups of four, as authenticator apps show it. */
export function groupSecret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * The provisioning link authenticator apps register for (the same account the server's QR
 * code names), for people who set up the app on the phone they are holding.
 */
export function otpauthUrl(secret: string, email: string): string {
  const label = encodeURIComponent(`Pillbox:${email}`);
  return `otpauth://totp/${label}?secret=${secret}&issuer=Pillbox&algorithm=SHA1&digits=6&period=30`;
}

type Step =
  | { step: 'intro' }
  | { step: 'verify'; setup: TotpSetup }
  | { step: 'done'; backupCodes: string[] };

interface TotpSetupDialogProps {
  onClose: () => void;
  /** The server turned the app on: this session's new token, before anything else is asked. */
  onEnabled: (token: string) => void;
}

/** Spec §2 "TOTP setup": intro, then QR code + secret + code, then the backup codes. */
export function TotpSetupDialog({ onClose, onEnabled }: TotpSetupDialogProps) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const email = user?.email ?? '';
  const [state, setState] = useState<Step>({ step: 'intro' });
  const [showSecret, setShowSecret] = useState(false);
  const [attempt, setAttempt] = useState(0);
  // The password is asked only to start; the dialog that holds it is gone by the next step.
  const start = useStartTotpSetup();
  const complete = useCompleteTotpSetup();
  const busy = complete.isPending;

  const verify = (code: string) => {
    complete.mutate(code, {
      onSuccess: (result) => {
        onEnabled(result.token);
        setState({ step: 'done', backupCodes: result.backupCodes });
      },
      onError: () => setAttempt((value) => value + 1),
    });
  };

  if (state.step === 'intro') {
    return (
      <ConfirmWithPasswordDialog
        title={t('twoFactor.totp.title')}
        passwordId="totp-password"
        submitLabel={t('twoFactor.totp.start')}
        busyLabel={t('twoFactor.totp.starting')}
        busy={start.isPending}
        error={start.error ? errorText(t, start.error, 'twoFactor.errors.startTotp', undefined, APP_ALREADY_ON) : null}
        onConfirm={(password) => start.mutate(password, { onSuccess: (setup) => setState({ step: 'verify', setup }) })}
        onClose={onClose}
      >
        <div className="prose">
          <p>{t('twoFactor.totp.intro')}</p>
          <ol className="steps">
            <li>{t('twoFactor.totp.step1')}</li>
            <li>{t('twoFactor.totp.step2')}</li>
            <li>{t('twoFactor.totp.step3')}</li>
          </ol>
        </div>
      </ConfirmWithPasswordDialog>
    );
  }

  if (state.step === 'verify') {
    const { secret, qrCodeUrl } = state.setup;
    return (
      <Dialog title={t('twoFactor.totp.title')} onClose={busy ? undefined : onClose}>
        <p>{t('twoFactor.totp.scan')}</p>
        <div className="totp-setup">
          <img className="qr-code" src={qrCodeUrl} alt={t('twoFactor.totp.qrAlt')} width={200} height={200} />
          <div className="totp-secret">
            <p className="field-hint" id="totp-secret-label">
              {t('twoFactor.totp.manual')}
            </p>
            <p className="secret-value" aria-labelledby="totp-secret-label">
              {showSecret ? (
                <code data-testid="totp-secret">{groupSecret(secret)}</code>
              ) : (
                <span className="secret-masked" aria-label={t('twoFactor.totp.secretHidden')}>
                  {/* eslint-disable i18next/no-literal-string -- a mask of dots, the same in every language */}
                  •••• •••• •••• ••••
                  {/* eslint-enable i18next/no-literal-string */}
                </span>
              )}
            </p>
            <div className="button-row">
              <button
                type="button"
                className="button button-secondary button-small"
                aria-pressed={showSecret}
                onClick={() => setShowSecret((value) => !value)}
              >
                {showSecret ? <EyeOffIcon /> : <EyeIcon />}
                <span>{showSecret ? t('twoFactor.totp.hideSecret') : t('twoFactor.totp.showSecret')}</span>
              </button>
              <CopyButton text={secret} label={t('twoFactor.totp.copySecret')} />
              <a className="button button-secondary button-small only-touch" href={otpauthUrl(secret, email)}>
                {t('twoFactor.totp.openApp')}
              </a>
            </div>
          </div>
        </div>
        <div className="code-step">
          <p id="totp-code-hint">{t('twoFactor.totp.enterCode')}</p>
          <CodeInput
            key={attempt}
            autoFocus
            label={t('twoFactor.totp.codeLabel')}
            describedBy="totp-code-hint"
            disabled={busy}
            onComplete={verify}
          />
          <p className="form-hint" role="status">
            {busy ? t('twoFactor.totp.verifying') : ''}
          </p>
        </div>
        {complete.error && (
          <p className="form-error" role="alert">
            {errorText(t, complete.error, 'twoFactor.errors.verifyTotp', undefined, APP_ALREADY_ON)}
          </p>
        )}
      </Dialog>
    );
  }

  return (
    <Dialog
      title={t('twoFactor.totp.doneTitle')}
      onClose={onClose}
      actions={
        // One dialog goes through the three steps, so this step moves focus itself.
        <button type="button" className="button button-primary" onClick={onClose} autoFocus>
          {t('twoFactor.backupCodes.saved')}
        </button>
      }
    >
      <p className="form-success" role="status">
        {t('twoFactor.totp.done')}
      </p>
      <BackupCodesList codes={state.backupCodes} />
    </Dialog>
  );
}

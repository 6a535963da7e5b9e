import { useEffect, useState } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { disabledBecause } from '../components/DisabledReason';
import { errorText } from '../i18n/messages';
import { useResendVerification } from '../queries/signIn';
import { PublicFrame } from './PublicFrame';

/** Spec §9: the initial "Checking your email..." spinner lasts 1 second. */
export const EMAIL_CHECK_MS = 1000;

type Result = { kind: 'success' | 'error'; text: string } | null;

export function EmailConfirmationScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const email = (searchParams.get('email') ?? '').trim();
  const [checking, setChecking] = useState(true);
  const resendVerification = useResendVerification();
  const sending = resendVerification.isPending;
  const [result, setResult] = useState<Result>(null);

  useEffect(() => {
    const timer = setTimeout(() => setChecking(false), EMAIL_CHECK_MS);
    return () => clearTimeout(timer);
  }, []);

  if (checking) {
    return (
      <PublicFrame>
        <div className="checking" role="status">
          <span className="spinner" aria-hidden="true" />
          <span>{t('emailConfirmation.checking')}</span>
        </div>
      </PublicFrame>
    );
  }

  // Without an address there is nothing to resend to: the page says so, and the button points to it.
  const noAddress = email === '' ? t('emailConfirmation.errors.noAddress') : null;

  const resend = async () => {
    setResult(null);
    try {
      const accepted = await resendVerification.mutateAsync(email);
      // The server sends in the background and answers alike whether or not the address
      // has an account waiting, so "sent" is more than it knows: say what did happen.
      setResult(
        accepted
          ? { kind: 'success', text: t('emailConfirmation.requested') }
          : { kind: 'error', text: t('emailConfirmation.errors.resendEmail') },
      );
    } catch (error) {
      setResult({ kind: 'error', text: errorText(t, error, 'emailConfirmation.errors.resendVerification') });
    }
  };

  return (
    <PublicFrame>
      <h1>{t('emailConfirmation.title')}</h1>
      {email === '' ? (
        <p className="form-error public-gap" role="alert" id="confirmation-no-address">
          {noAddress}
        </p>
      ) : (
        <div className="prose">
          <p>
            {t('emailConfirmation.sentTo')}{' '}
            <strong className="break-anywhere" data-testid="confirmation-email">
              {email}
            </strong>
          </p>
          <p>{t('emailConfirmation.instructions')}</p>
          <p className="note">{t('emailConfirmation.spam')}</p>
        </div>
      )}

      {result && (
        <p
          className={result.kind === 'success' ? 'form-success public-gap' : 'form-error public-gap'}
          role={result.kind === 'success' ? 'status' : 'alert'}
        >
          {result.text}
        </p>
      )}

      <div className="stack-actions">
        <button
          type="button"
          className="button button-primary button-block"
          disabled={email === '' || sending}
          {...disabledBecause('confirmation-no-address', noAddress)}
          onClick={() => void resend()}
        >
          {sending ? t('emailConfirmation.sending') : t('emailConfirmation.resend')}
        </button>
        <button type="button" className="button button-secondary button-block" onClick={() => void navigate('/login')}>
          {t('emailConfirmation.backToLogin')}
        </button>
      </div>
      {email === '' && (
        <p className="public-alt">
          {t('emailConfirmation.signInHint')} <Link to="/register">{t('emailConfirmation.registerAgain')}</Link>
        </p>
      )}
    </PublicFrame>
  );
}

import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, Navigate } from 'react-router-dom';
import { useAuth } from '../auth/AuthContext';
import { errorText } from '../i18n/messages';
import { useForgotPassword } from '../queries/signIn';
import { PublicFrame } from './PublicFrame';

type Outcome = { kind: 'sent'; email: string } | { kind: 'noEmail' };

/**
 * /forgot-password: asks for the address and has a one-time link mailed. The server answers
 * the same for every address, so the screen does too; only a server that cannot send e-mail
 * at all is told apart, since then no link can come and the administrator has to help.
 */
export function ForgotPasswordScreen() {
  const { t } = useTranslation();
  const { isAuthenticated } = useAuth();
  const [email, setEmail] = useState('');
  const forgotPassword = useForgotPassword();
  const submitting = forgotPassword.isPending;
  const [error, setError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  if (isAuthenticated) return <Navigate to="/medications" replace />;

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setError(null);
    const address = email.trim();
    try {
      const { emailAvailable } = await forgotPassword.mutateAsync(address);
      setOutcome(emailAvailable ? { kind: 'sent', email: address } : { kind: 'noEmail' });
    } catch (err) {
      setError(errorText(t, err, 'forgotPassword.failed'));
    }
  };

  const backToSignIn = (
    <p className="public-alt">
      <Link to="/login">{t('forgotPassword.backToSignIn')}</Link>
    </p>
  );

  if (outcome?.kind === 'sent') {
    return (
      <PublicFrame>
        <h1>{t('forgotPassword.sentTitle')}</h1>
        <p className="form-success" role="status" data-testid="forgot-outcome">
          {t('forgotPassword.sent', { email: outcome.email })}
        </p>
        {backToSignIn}
      </PublicFrame>
    );
  }
  if (outcome?.kind === 'noEmail') {
    return (
      <PublicFrame>
        <h1>{t('forgotPassword.noEmailTitle')}</h1>
        <p className="public-subtitle" role="status" data-testid="forgot-outcome">
          {t('forgotPassword.noEmail')}
        </p>
        {backToSignIn}
      </PublicFrame>
    );
  }

  return (
    <PublicFrame>
      <h1>{t('forgotPassword.title')}</h1>
      <p className="public-subtitle">{t('forgotPassword.subtitle')}</p>
      <form className="form" onSubmit={(event) => void submit(event)}>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="forgot-email">{t('forgotPassword.email')}</label>
          <input
            id="forgot-email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </div>
        <button type="submit" className="button button-primary button-block" disabled={submitting}>
          {submitting ? t('forgotPassword.submitting') : t('forgotPassword.submit')}
        </button>
      </form>
      {backToSignIn}
    </PublicFrame>
  );
}

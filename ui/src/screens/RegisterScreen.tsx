import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import { useAuth } from '../auth/AuthContext';
import { passwordProblem } from '../auth/passwordRules';
import { registrationOffered } from '../auth/registration';
import { NewPasswordFields } from '../components/NewPasswordFields';
import { errorText } from '../i18n/messages';
import { keptInvitation, pathAfterSignIn } from '../people/pendingInvitation';
import { useRegistrationQuery } from '../queries/account';
import { PublicFrame } from './PublicFrame';

export function RegisterScreen() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { isAuthenticated, register } = useAuth();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const registration = useRegistrationQuery();

  if (isAuthenticated && !submitting) return <Navigate to={pathAfterSignIn()} replace />;

  if (registration.isPending) {
    return (
      <PublicFrame>
        <h1>{t('register.title')}</h1>
        <p className="public-subtitle" role="status">
          {t('common.loading')}
        </p>
      </PublicFrame>
    );
  }
  if (!registrationOffered(registration.data, keptInvitation() !== null)) {
    return (
      <PublicFrame>
        <h1>{t('register.closedTitle')}</h1>
        <p className="public-subtitle" data-testid="registration-closed">
          {registration.data?.invitations ? t('register.closedInvitations') : t('register.closed')}
        </p>
        <div className="stack-actions">
          <Link to="/login" className="button button-primary button-block">
            {t('register.signIn')}
          </Link>
        </div>
      </PublicFrame>
    );
  }

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = passwordProblem(password, confirmation);
    if (problem) {
      setError(t(problem));
      return;
    }
    setSubmitting(true);
    setError(null);
    const address = email.trim();
    try {
      // The confirmation stays here: the e-mail address, the password and the language the
      // page is shown in are sent.
      const result = await register(address, password, i18n.language);
      if (result.kind === 'verificationRequired') {
        void navigate(`/email-confirmation?email=${encodeURIComponent(address)}`);
      } else {
        void navigate(pathAfterSignIn(), { replace: true });
      }
    } catch (err) {
      setError(errorText(t, err, 'register.failed'));
      setSubmitting(false);
    }
  };

  return (
    <PublicFrame>
      <h1>{t('register.title')}</h1>
      <p className="public-subtitle">{t('register.subtitle')}</p>
      <form className="form" onSubmit={(event) => void submit(event)}>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="register-email">{t('register.email')}</label>
          <input
            id="register-email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </div>
        <NewPasswordFields
          idPrefix="register"
          passwordLabel={t('register.password')}
          confirmLabel={t('register.confirmPassword')}
          password={password}
          confirmation={confirmation}
          onPasswordChange={setPassword}
          onConfirmationChange={setConfirmation}
          showRules
        />
        <button type="submit" className="button button-primary button-block" disabled={submitting}>
          {submitting ? t('register.submitting') : t('register.submit')}
        </button>
      </form>
      <p className="public-alt">
        {t('register.haveAccount')} <Link to="/login">{t('register.signIn')}</Link>
      </p>
    </PublicFrame>
  );
}

import { useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import { NETWORK_ERROR_MESSAGE, requiresEmailVerification } from '../api';
import { useAuth } from '../auth/AuthContext';
import { VersionLabel } from '../components/VersionLabel';
import { PublicFrame } from './PublicFrame';

export function LoginScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { isAuthenticated, login } = useAuth();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (isAuthenticated) return <Navigate to="/medications" replace />;

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitting(true);
    setError(null);
    try {
      // Once signed in, this screen re-renders as a redirect to /medications.
      await login(email.trim(), password);
    } catch (err) {
      if (requiresEmailVerification(err)) {
        void navigate(`/email-confirmation?email=${encodeURIComponent(email.trim())}`);
        return;
      }
      const message = err instanceof Error ? err.message : '';
      if (message === NETWORK_ERROR_MESSAGE) setError(t('errors.network'));
      else setError(message || t('login.failed'));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <PublicFrame footer={<VersionLabel className="public-footer" />}>
      <h1>{t('login.title')}</h1>
      <p className="public-subtitle">{t('login.subtitle')}</p>
      <form className="form" onSubmit={(event) => void submit(event)}>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="login-email">{t('login.email')}</label>
          <input
            id="login-email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="login-password">{t('login.password')}</label>
          <input
            id="login-password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </div>
        <button type="submit" className="button button-primary button-block" disabled={submitting}>
          {submitting ? t('login.submitting') : t('login.submit')}
        </button>
      </form>
      <p className="public-alt">
        {t('login.noAccount')} <Link to="/register">{t('login.createAccount')}</Link>
      </p>
    </PublicFrame>
  );
}

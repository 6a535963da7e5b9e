import { useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError, resetPassword } from '../api';
import { useAuth } from '../auth/AuthContext';
import { errorText } from '../i18n/messages';
import { MIN_PASSWORD_LENGTH, passwordProblem } from './RegisterScreen';
import { PublicFrame } from './PublicFrame';

/**
 * /reset-password/:token, opened from the e-mailed link: a new password, twice. Every
 * session of the account ends with the change, this browser's too, so the screen ends on the
 * sign-in page with a message saying the password was changed.
 */
export function ResetPasswordScreen() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const { isAuthenticated, logout } = useAuth();
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [linkInvalid, setLinkInvalid] = useState(false);

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = passwordProblem(password, confirmation);
    if (problem) {
      setError(t(problem));
      return;
    }
    setSubmitting(true);
    setError(null);
    try {
      await resetPassword(token, password);
      // The server signed out every session; this browser forgets its own.
      if (isAuthenticated) logout();
      void navigate('/login?reset=true', { replace: true });
    } catch (err) {
      setLinkInvalid(err instanceof ApiError && err.code === 'reset_link_invalid');
      setError(errorText(t, err, 'resetPassword.failed'));
      setSubmitting(false);
    }
  };

  return (
    <PublicFrame>
      <h1>{t('resetPassword.title')}</h1>
      <p className="public-subtitle">{t('resetPassword.subtitle')}</p>
      <form className="form" onSubmit={(event) => void submit(event)}>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        {linkInvalid && (
          <p>
            <Link to="/forgot-password">{t('resetPassword.askAgain')}</Link>
          </p>
        )}
        <div className="field">
          <label htmlFor="reset-password">{t('resetPassword.password')}</label>
          <input
            id="reset-password"
            type="password"
            autoComplete="new-password"
            required
            aria-describedby="reset-password-hint"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
          <p className="field-hint" id="reset-password-hint">
            {t('register.passwordHint', { min: MIN_PASSWORD_LENGTH })}
          </p>
        </div>
        <div className="field">
          <label htmlFor="reset-confirm">{t('resetPassword.confirmPassword')}</label>
          <input
            id="reset-confirm"
            type="password"
            autoComplete="new-password"
            required
            value={confirmation}
            onChange={(event) => setConfirmation(event.target.value)}
          />
        </div>
        <button type="submit" className="button button-primary button-block" disabled={submitting}>
          {submitting ? t('resetPassword.submitting') : t('resetPassword.submit')}
        </button>
      </form>
      <p className="public-alt">
        <Link to="/login">{t('forgotPassword.backToSignIn')}</Link>
      </p>
    </PublicFrame>
  );
}

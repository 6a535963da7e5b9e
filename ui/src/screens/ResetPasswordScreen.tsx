import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError } from '../api/client';
import { useAuth } from '../auth/AuthContext';
import { passwordProblem } from '../auth/passwordRules';
import { NewPasswordFields } from '../components/NewPasswordFields';
import { errorText } from '../i18n/messages';
import { useResetPassword } from '../queries/signIn';
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
  // What is wrong with the two passwords typed, found before anything is sent.
  const [problem, setProblem] = useState<string | null>(null);
  const reset = useResetPassword();
  // Once the password is changed the screen leaves; until then the button waits.
  const submitting = reset.isPending || reset.isSuccess;
  const linkInvalid = reset.error instanceof ApiError && reset.error.code === 'reset_link_invalid';
  const error = problem ? t(problem) : reset.error ? errorText(t, reset.error, 'resetPassword.failed') : null;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = passwordProblem(password, confirmation);
    setProblem(found);
    if (found) return;
    reset.mutate(
      { token, password },
      {
        onSuccess: () => {
          // The server signed out every session; this browser forgets its own.
          if (isAuthenticated) logout();
          void navigate('/login?reset=true', { replace: true });
        },
      },
    );
  };

  return (
    <PublicFrame>
      <h1>{t('resetPassword.title')}</h1>
      <p className="public-subtitle">{t('resetPassword.subtitle')}</p>
      <form className="form" onSubmit={submit}>
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
        <NewPasswordFields
          idPrefix="reset"
          passwordLabel={t('resetPassword.password')}
          confirmLabel={t('resetPassword.confirmPassword')}
          password={password}
          confirmation={confirmation}
          onPasswordChange={setPassword}
          onConfirmationChange={setConfirmation}
          showRules
        />
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

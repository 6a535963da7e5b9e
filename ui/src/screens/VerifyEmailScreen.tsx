import { useTranslation } from '../i18n/useTranslation';
import { useNavigate, useParams } from 'react-router-dom';
import { CheckIcon, CloseIcon } from '../components/icons';
import { errorText } from '../i18n/messages';
import { useVerifyEmailQuery } from '../queries/signIn';
import { PublicFrame } from './PublicFrame';

type State =
  | { kind: 'verifying' }
  | { kind: 'verified' }
  | { kind: 'failed'; detail: string | null }
  | { kind: 'missing' };

export function VerifyEmailScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { token = '' } = useParams();
  const trimmed = token.trim();
  const hasToken = trimmed !== '';
  // A verification link works once: the query asks once per token and page load.
  const verification = useVerifyEmailQuery(trimmed, hasToken);
  const state: State = !hasToken
    ? { kind: 'missing' }
    : verification.isPending
      ? { kind: 'verifying' }
      : verification.isError
        ? { kind: 'failed', detail: errorText(t, verification.error, 'verifyEmail.failed') }
        : // An invalid or expired link needs no more words than the explanation below.
          verification.data.success && verification.data.emailVerified
          ? { kind: 'verified' }
          : { kind: 'failed', detail: null };

  if (state.kind === 'verifying') {
    return (
      <PublicFrame>
        <div className="checking" role="status">
          <span className="spinner" aria-hidden="true" />
          <span>{t('verifyEmail.verifying')}</span>
        </div>
      </PublicFrame>
    );
  }

  if (state.kind === 'verified') {
    return (
      <PublicFrame>
        <div className="result-icon result-success" aria-hidden="true">
          <CheckIcon width={28} height={28} />
        </div>
        <h1>{t('verifyEmail.verifiedTitle')}</h1>
        <p className="public-subtitle">{t('verifyEmail.verifiedText')}</p>
        <div className="stack-actions">
          <button
            type="button"
            className="button button-primary button-block"
            onClick={() => void navigate('/login?verified=true')}
          >
            {t('verifyEmail.continue')}
          </button>
        </div>
      </PublicFrame>
    );
  }

  return (
    <PublicFrame>
      <div className="result-icon result-error" aria-hidden="true">
        <CloseIcon width={28} height={28} />
      </div>
      <h1>{t('verifyEmail.failedTitle')}</h1>
      {state.kind === 'missing' ? (
        <p className="form-error public-gap" role="alert">
          {t('verifyEmail.noToken')}
        </p>
      ) : (
        <>
          {state.detail && (
            <p className="form-error public-gap" role="alert">
              {state.detail}
            </p>
          )}
          <p className="public-subtitle">{t('verifyEmail.failedText')}</p>
        </>
      )}
      <div className="stack-actions">
        <button type="button" className="button button-primary button-block" onClick={() => void navigate('/login')}>
          {t('verifyEmail.goToLogin')}
        </button>
        <button
          type="button"
          className="button button-secondary button-block"
          onClick={() => void navigate('/email-confirmation')}
        >
          {t('verifyEmail.requestNew')}
        </button>
      </div>
    </PublicFrame>
  );
}

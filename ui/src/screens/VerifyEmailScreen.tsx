import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router-dom';
import * as api from '../api';
import type { VerificationResult } from '../api';
import { CheckIcon, CloseIcon } from '../components/icons';
import { errorText } from '../i18n/messages';
import { PublicFrame } from './PublicFrame';

// A verification link works once. Development's StrictMode runs effects twice, and a
// remount must not spend the token again: one call per token per page load.
const verifications = new Map<string, Promise<VerificationResult>>();

function verifyOnce(token: string): Promise<VerificationResult> {
  let pending = verifications.get(token);
  if (!pending) {
    pending = api.verifyEmail(token);
    verifications.set(token, pending);
  }
  return pending;
}

type State =
  | { kind: 'verifying' }
  | { kind: 'verified' }
  | { kind: 'failed'; detail: string | null }
  | { kind: 'missing' };

export function VerifyEmailScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { token = '' } = useParams();
  const hasToken = token.trim() !== '';
  const [state, setState] = useState<State>(hasToken ? { kind: 'verifying' } : { kind: 'missing' });

  useEffect(() => {
    if (!hasToken) return;
    let current = true;
    verifyOnce(token.trim())
      .then((result) => {
        if (!current) return;
        // An invalid or expired link needs no more words than the explanation below.
        setState(result.success && result.emailVerified ? { kind: 'verified' } : { kind: 'failed', detail: null });
      })
      .catch((error: unknown) => {
        if (current) setState({ kind: 'failed', detail: errorText(t, error, 'verifyEmail.failed') });
      });
    return () => {
      current = false;
    };
  }, [hasToken, token, t]);

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

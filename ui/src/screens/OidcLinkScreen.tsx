import { useState, type ReactNode, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, Navigate, useSearchParams } from 'react-router-dom';
import { ApiError, isJsonObject } from '../api/client';
import type { TwoFactorMethod } from '../api/types';
import { useAuth } from '../auth/AuthContext';
import { VersionLabel } from '../components/VersionLabel';
import { errorText } from '../i18n/messages';
import { pathAfterSignIn } from '../people/pendingInvitation';
import { useOidcLinkQuery } from '../queries/oidc';
import { useSendSignInCode } from '../queries/signIn';
import { PublicFrame } from './PublicFrame';

/** This page asks only for a password: a wrong one is that account's wrong password. */
const LINK_CODE_KEYS = { invalid_credentials: 'login.link.wrongPassword' };

/** The methods a `two_factor_required` answer names; null for any other answer. */
function secondFactorOf(error: unknown): TwoFactorMethod[] | null {
  if (!(error instanceof ApiError) || error.code !== 'two_factor_required' || !isJsonObject(error.body)) return null;
  const methods = error.body.availableMethods;
  return Array.isArray(methods)
    ? methods.filter((m): m is TwoFactorMethod => m === 'totp' || m === 'email')
    : [];
}

/**
 * Back from the identity provider with an identity whose verified address belongs to an
 * account that is not linked to it yet (`/login/link?oidc_link=…`): says which identity would
 * be linked to which account, and links them with that account's password (and its second
 * factor, when on), which also signs in.
 */
export function OidcLinkScreen() {
  const { t } = useTranslation();
  const [searchParams] = useSearchParams();
  const code = searchParams.get('oidc_link') ?? '';
  const returnTo = searchParams.get('return_to') ?? undefined;
  const { isAuthenticated, loginWithOidcLink } = useAuth();
  const offer = useOidcLinkQuery(code, code !== '');
  const sendSignInCode = useSendSignInCode();
  const [password, setPassword] = useState('');
  const [methods, setMethods] = useState<TwoFactorMethod[] | null>(null);
  const [secondFactor, setSecondFactor] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (isAuthenticated) return <Navigate to={pathAfterSignIn(returnTo)} replace />;

  const frame = (body: ReactNode) => (
    <PublicFrame footer={<VersionLabel className="public-footer" />}>
      <h1>{t('login.link.title')}</h1>
      {body}
      <p className="public-alt">
        <Link to="/login">{t('login.link.cancel')}</Link>
      </p>
    </PublicFrame>
  );

  if (code === '' || offer.isError) {
    return frame(
      <p className="form-error" role="alert">
        {offer.isError ? errorText(t, offer.error, 'server.oidcCodeInvalid') : t('server.oidcCodeInvalid')}
      </p>,
    );
  }
  if (!offer.data) return frame(<p role="status">{t('login.link.opening')}</p>);
  const { link, provider, identity_email: identity, account_email: account } = offer.data;
  const emailCode = methods !== null && !methods.includes('totp') && methods.includes('email');

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Once signed in, this screen re-renders as a redirect to the page asked for.
      await loginWithOidcLink(link, password, methods !== null ? secondFactor.trim() : undefined);
    } catch (err) {
      const asked = methods === null ? secondFactorOf(err) : null;
      if (asked !== null) {
        setMethods(asked);
        if (!asked.includes('totp') && asked.includes('email')) {
          await sendSignInCode.mutateAsync({ email: account, password, method: 'email' }).catch((sendError: unknown) => {
            setError(errorText(t, sendError, 'login.errors.resendOtp'));
          });
        }
      } else {
        setError(errorText(t, err, 'login.link.failed', undefined, LINK_CODE_KEYS));
      }
      setBusy(false);
    }
  };

  return frame(
    <>
      <p className="public-subtitle">{t('login.link.intro', { provider, identity, account })}</p>
      <p>{t('login.link.ask', { provider })}</p>
      <form className="form" onSubmit={(event) => void submit(event)}>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="link-password">{t('login.link.password', { account })}</label>
          <input
            id="link-password"
            type="password"
            autoComplete="current-password"
            required
            readOnly={methods !== null}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </div>
        {methods !== null && (
          <div className="field">
            <label htmlFor="link-code">{t('login.link.codeLabel')}</label>
            <p className="form-hint" id="link-code-hint">
              {emailCode ? t('login.link.emailCodeHint', { email: account }) : t('login.link.codeHint')}
            </p>
            <input
              id="link-code"
              className="mono"
              autoComplete="one-time-code"
              autoCapitalize="characters"
              spellCheck={false}
              required
              aria-describedby="link-code-hint"
              value={secondFactor}
              onChange={(event) => setSecondFactor(event.target.value)}
            />
          </div>
        )}
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? t('login.link.submitting') : t('login.link.submit')}
        </button>
      </form>
    </>,
  );
}

import { useEffect, useReducer, useState, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import type { TwoFactorMethod } from '../api/types';
import { useAuth } from '../auth/AuthContext';
import { cleanBackupCode } from '../auth/backupCode';
import { registrationOffered } from '../auth/registration';
import {
  LoginFailure,
  codeMethods,
  initialLoginView,
  initialMethod,
  loginViewReducer,
  sendsCode,
  type LoginStage,
} from '../auth/loginFlow';
import { CodeInput } from '../components/CodeInput';
import { DisabledReason, disabledBecause } from '../components/DisabledReason';
import { VersionLabel } from '../components/VersionLabel';
import { errorText } from '../i18n/messages';
import { keptInvitation, pathAfterSignIn } from '../people/pendingInvitation';
import { RouteLoading } from '../components/RouteLoading';
import { useRegistrationQuery, useSignInProvidersQuery, useVersionQuery } from '../queries/account';
import { useFirstAnswers } from '../queries/firstAnswers';
import { useSendSignInCode } from '../queries/signIn';
import { passkeyErrorText } from '../auth/passkeyErrors';
import { PublicFrame } from './PublicFrame';

/** The refusals the provider's return may bring back (`/login?oidc_error=…`). */
const OIDC_ERRORS: Record<string, string> = {
  oidc_not_configured: 'server.oidcNotConfigured',
  oidc_failed: 'server.oidcFailed',
  oidc_not_allowed: 'server.oidcNotAllowed',
  oidc_group_denied: 'server.oidcGroupDenied',
  oidc_email_unverified: 'server.oidcEmailUnverified',
};

const FALLBACK_BY_STAGE: Record<LoginStage, string> = {
  requirements: 'login.errors.checkRequirements',
  login: 'login.failed',
  code: 'login.errors.verifyOtp',
};

type Busy = 'idle' | 'signingIn' | 'sending' | 'verifying' | 'passkey';

export function LoginScreen() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [searchParams] = useSearchParams();
  const { isAuthenticated, login, loginWithCode, loginWithPasskey, loginWithOidcCode, notice: sessionNotice } = useAuth();
  const [view, dispatch] = useReducer(loginViewReducer, initialLoginView);
  const [email, setEmail] = useState('');
  // Kept in memory only, and only until the code step ends: the code step needs it again.
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState<Busy>('idle');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [codeAttempt, setCodeAttempt] = useState(0);
  const [useBackupCode, setUseBackupCode] = useState(false);
  const [backupCode, setBackupCode] = useState('');
  const registration = useRegistrationQuery();
  const providers = useSignInProvidersQuery();
  // The page waits for its "Create an account" line and its version (asked with the app's
  // start) before it shows, so that neither moves the form when it arrives.
  const whole = useFirstAnswers([registration, useVersionQuery()]);
  const sendSignInCode = useSendSignInCode();
  // Back from the identity provider: its one-time code becomes a session here.
  const oidcCode = searchParams.get('oidc_code');
  const [oidcFailure, setOidcFailure] = useState<unknown>(null);
  useEffect(() => {
    if (oidcCode !== null) loginWithOidcCode(oidcCode).catch(setOidcFailure);
  }, [oidcCode, loginWithOidcCode]);

  // Back to an invitation opened while signed out, if one waits, else to the page the guard
  // sent here from (a reminder's /today, a bookmark).
  const from = (location.state as { from?: { pathname: string; search: string } } | null)?.from;
  const fromPath = from ? from.pathname + from.search : (searchParams.get('return_to') ?? undefined);
  if (isAuthenticated) return <Navigate to={pathAfterSignIn(fromPath)} replace />;
  if (!whole) return <RouteLoading />;

  const methodName = (method: TwoFactorMethod) => t(`twoFactor.methods.${method}`);
  const address = email.trim();

  const sendCode = async (method: TwoFactorMethod, reason: 'auto' | 'resend') => {
    setBusy('sending');
    setError(null);
    setNotice(null);
    try {
      await sendSignInCode.mutateAsync({ email: address, password, method });
      if (reason === 'resend') setNotice(t('login.codeResent'));
    } catch (err) {
      setError(
        reason === 'resend'
          ? errorText(t, err, 'login.errors.resendOtp')
          : errorText(t, err, 'login.errors.sendMethod', { method: t(`twoFactor.methodsInline.${method}`) }),
      );
    } finally {
      setBusy('idle');
    }
  };

  const submitCredentials = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy('signingIn');
    setError(null);
    setNotice(null);
    try {
      // Once signed in, this screen re-renders as a redirect (to /medications, or an invitation).
      const outcome = await login(address, password);
      if (outcome.kind === 'verificationRequired') {
        void navigate(`/email-confirmation?email=${encodeURIComponent(address)}`);
      } else if (outcome.kind === 'twoFactorRequired') {
        dispatch({ type: 'TWO_FACTOR_REQUIRED', methods: outcome.methods, preferredMethod: outcome.preferredMethod });
        const method = initialMethod(outcome.methods, outcome.preferredMethod);
        setBusy('idle');
        if (sendsCode(method)) await sendCode(method, 'auto');
        return;
      }
    } catch (err) {
      const stage = err instanceof LoginFailure ? err.stage : 'login';
      setError(errorText(t, err, FALLBACK_BY_STAGE[stage]));
    }
    setBusy('idle');
  };

  const submitCode = async (code: string) => {
    setBusy('verifying');
    setError(null);
    setNotice(null);
    try {
      await loginWithCode(address, password, code);
    } catch (err) {
      setError(errorText(t, err, 'login.errors.verifyOtp'));
      setCodeAttempt((attempt) => attempt + 1);
      setBusy('idle');
    }
  };

  /** A passkey alone (`secondFactor` false), or instead of the code after the password. */
  const signInWithPasskey = async (secondFactor: boolean) => {
    setBusy('passkey');
    setError(null);
    setNotice(null);
    try {
      // Once signed in, this screen re-renders as a redirect.
      await loginWithPasskey(secondFactor ? { email: address, password } : undefined);
    } catch (err) {
      setError(passkeyErrorText(t, err, 'login.passkey.failed'));
      setBusy('idle');
    }
  };

  const chooseMethod = (method: TwoFactorMethod) => {
    if (view.step !== 'code' || method === view.method) return;
    dispatch({ type: 'METHOD_CHOSEN', method });
    setCodeAttempt((attempt) => attempt + 1);
    setError(null);
    setNotice(null);
    if (sendsCode(method)) void sendCode(method, 'auto');
  };

  const backToLogin = () => {
    dispatch({ type: 'BACK_TO_LOGIN' });
    setPassword('');
    setError(null);
    setNotice(null);
    setUseBackupCode(false);
    setBackupCode('');
  };

  const errorBox = error && (
    <p className="form-error" role="alert">
      {error}
    </p>
  );

  if (view.step === 'code') {
    const codeHintId = 'login-code-hint';
    const waitId = 'login-code-wait';
    const trimmedBackup = backupCode.trim();
    // While a code is being sent or checked, the other controls wait, and say so.
    const waiting =
      busy === 'verifying'
        ? t('login.code.verifying')
        : busy === 'sending'
          ? t('login.code.sending')
          : busy === 'passkey'
            ? t('login.passkey.signingIn')
            : null;
    const backupNeeded = trimmedBackup === '' ? t('login.code.backupNeeded') : null;
    const codeChoices = codeMethods(view.methods);
    const passkeyOffered = view.methods.includes('passkey');
    const waitingReason = disabledBecause(waitId, waiting);
    return (
      <PublicFrame footer={<VersionLabel className="public-footer" />}>
        <h1>{t('login.code.title')}</h1>
        <p className="public-subtitle" id={codeHintId}>
          {view.method === 'email' ? t('login.code.emailSent', { email: address }) : t('login.code.totpHint')}
        </p>

        <div className="form">
          {codeChoices.length > 1 && (
            <fieldset className="choice-group">
              <legend>{t('login.code.method')}</legend>
              {codeChoices.map((method) => (
                <label key={method} className="choice">
                  <input
                    type="radio"
                    name="login-method"
                    value={method}
                    checked={view.method === method}
                    disabled={busy !== 'idle'}
                    {...waitingReason}
                    onChange={() => chooseMethod(method)}
                  />
                  <span>
                    {methodName(method)}
                    {method === view.preferredMethod && (
                      <>
                        {' '}
                        <span className="choice-tag">{t('login.code.preferred')}</span>
                      </>
                    )}
                  </span>
                </label>
              ))}
            </fieldset>
          )}

          {errorBox}
          {notice && (
            <p className="form-success" role="status">
              {notice}
            </p>
          )}

          {useBackupCode ? (
            <form
              className="form form-tight"
              onSubmit={(event) => {
                event.preventDefault();
                if (trimmedBackup !== '') void submitCode(trimmedBackup);
              }}
            >
              <div className="field">
                <label htmlFor="login-backup-code">{t('login.code.backupLabel')}</label>
                <input
                  id="login-backup-code"
                  className="mono"
                  autoComplete="off"
                  autoCapitalize="characters"
                  spellCheck={false}
                  value={backupCode}
                  onChange={(event) => setBackupCode(cleanBackupCode(event.target.value))}
                  disabled={busy !== 'idle'}
                  {...waitingReason}
                />
              </div>
              <button
                type="submit"
                className="button button-primary button-block"
                disabled={busy !== 'idle' || trimmedBackup === ''}
                {...(waiting === null ? disabledBecause('login-backup-needed', backupNeeded) : waitingReason)}
              >
                {busy === 'verifying' ? t('login.code.verifying') : t('login.code.verify')}
              </button>
              <DisabledReason id="login-backup-needed" reason={waiting === null ? backupNeeded : null} />
            </form>
          ) : (
            <CodeInput
              key={`${view.method}-${codeAttempt}`}
              label={t('login.code.inputLabel')}
              describedBy={busy === 'verifying' ? `${codeHintId} ${waitId}` : codeHintId}
              autoFocus
              disabled={busy === 'verifying'}
              onComplete={(code) => void submitCode(code)}
            />
          )}
          <p className="form-hint" role="status" id={waitId}>
            {waiting ?? ''}
          </p>

          {passkeyOffered && (
            <div className="form form-tight">
              <p className="form-hint">{t('login.passkey.secondFactorHint')}</p>
              <button
                type="button"
                className="button button-secondary button-block"
                disabled={busy !== 'idle'}
                {...waitingReason}
                onClick={() => void signInWithPasskey(true)}
              >
                {t('login.passkey.secondFactor')}
              </button>
            </div>
          )}

          <div className="link-row">
            {view.method !== 'totp' && !useBackupCode && (
              <button
                type="button"
                className="button-link"
                disabled={busy !== 'idle'}
                {...waitingReason}
                onClick={() => void sendCode(view.method, 'resend')}
              >
                {t('login.code.resend')}
              </button>
            )}
            <button
              type="button"
              className="button-link"
              onClick={() => {
                setUseBackupCode((value) => !value);
                setBackupCode('');
                setError(null);
              }}
            >
              {useBackupCode ? t('login.code.useCode') : t('login.code.useBackup')}
            </button>
          </div>
        </div>

        <p className="public-alt">
          <button type="button" className="button-link" onClick={backToLogin}>
            {t('login.code.back')}
          </button>
        </p>
      </PublicFrame>
    );
  }

  if (oidcCode !== null && oidcFailure === null) {
    return (
      <PublicFrame footer={<VersionLabel className="public-footer" />}>
        <h1>{t('login.title')}</h1>
        <p role="status">{t('login.oidc.signingIn')}</p>
      </PublicFrame>
    );
  }

  const oidcError = searchParams.get('oidc_error');
  const oidcErrorText =
    oidcFailure !== null
      ? errorText(t, oidcFailure, 'server.oidcFailed')
      : oidcError !== null
        ? t(OIDC_ERRORS[oidcError] ?? 'server.oidcFailed')
        : null;
  const provider = providers.data?.oidc ?? null;
  const showPasswordForm = providers.data?.password !== false || searchParams.get('local') === '1';
  // The app's language goes along: an account the provider makes speaks it, as one made with
  // the registration form does.
  const startQuery = new URLSearchParams({ ...(fromPath ? { return_to: fromPath } : {}), lang: i18n.language });
  const startAt = `/api/auth/oidc/start?${startQuery.toString()}`;
  const passkeysOffered = providers.data?.passkeys === true;

  return (
    <PublicFrame footer={<VersionLabel className="public-footer" />}>
      <h1>{t('login.title')}</h1>
      <p className="public-subtitle">{t('login.subtitle')}</p>
      {oidcErrorText !== null && !error && (
        <div className="form-error" role="alert">
          {oidcErrorText}
        </div>
      )}
      {provider !== null && (
        <>
          <a className="button button-secondary button-block" href={startAt}>
            {t('login.oidc.button', { label: provider.label })}
          </a>
          {(showPasswordForm || passkeysOffered) && <p className="public-divider">{t('login.oidc.or')}</p>}
        </>
      )}
      {passkeysOffered && (
        <>
          {!showPasswordForm && errorBox}
          <button
            type="button"
            className="button button-secondary button-block"
            disabled={busy !== 'idle'}
            onClick={() => void signInWithPasskey(false)}
          >
            {busy === 'passkey' ? t('login.passkey.signingIn') : t('login.passkey.button')}
          </button>
          {showPasswordForm && <p className="public-divider">{t('login.passkey.or')}</p>}
        </>
      )}
      {showPasswordForm && (
      <form className="form" onSubmit={(event) => void submitCredentials(event)}>
        {searchParams.get('verified') === 'true' && !error && (
          <p className="form-success" role="status">
            {t('login.verified')}
          </p>
        )}
        {searchParams.get('reset') === 'true' && !error && (
          <p className="form-success" role="status">
            {t('login.passwordReset')}
          </p>
        )}
        {sessionNotice?.kind === 'proxySignedOut' && !error && (
          <p className="form-success" role="status">
            {t('login.proxySignedOut')}
          </p>
        )}
        {sessionNotice?.kind === 'proxyRefused' && !error && (
          <p className="form-error" role="alert">
            {errorText(t, sessionNotice.error, 'login.proxyRefused')}
          </p>
        )}
        {errorBox}
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
        <p className="form-hint">
          <Link to="/forgot-password">{t('login.forgotPassword')}</Link>
        </p>
        <button type="submit" className="button button-primary button-block" disabled={busy !== 'idle'}>
          {busy === 'signingIn' ? t('login.submitting') : t('login.submit')}
        </button>
      </form>
      )}
      {!registration.isPending && registrationOffered(registration.data, keptInvitation() !== null) && (
        <p className="public-alt">
          {t('login.noAccount')} <Link to="/register">{t('login.createAccount')}</Link>
        </p>
      )}
    </PublicFrame>
  );
}

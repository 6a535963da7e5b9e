import { useEffect } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError } from '../api/client';
import { useAuth } from '../auth/AuthContext';
import { registrationOffered } from '../auth/registration';
import { LoadingScreen } from '../components/LoadingScreen';
import { FormError } from '../components/medications/FormError';
import { circleErrorText, errorCodeOf } from '../people/errors';
import { forgetInvitation, rememberInvitation } from '../people/pendingInvitation';
import { savePersonChoice } from '../people/personChoice';
import { useRegistrationQuery } from '../queries/account';
import { useAcceptInvitation, useInvitationPreviewQuery, useInvitationQuery } from '../queries/people';
import { PublicFrame } from './PublicFrame';
import '../styles/people.css';

/** Why an invitation cannot be used, with what to do about it. */
function Refusal({ error }: { error: unknown }) {
  const { t } = useTranslation('circle');
  const { user, logout } = useAuth();
  const navigate = useNavigate();
  const code = errorCodeOf(error);
  const email = error instanceof ApiError ? (error.params.email ?? '') : '';
  return (
    <>
      <h1>{t('invitation.problemTitle')}</h1>
      <FormError
        text={
          code === 'invitation_other_account'
            ? t('invitation.otherAccount', { email, current: user?.email ?? '' })
            : circleErrorText(error, 'invitation.loadFailed')
        }
      />
      <div className="stack-actions">
        {code === 'invitation_other_account' && (
          <button
            type="button"
            className="button button-primary button-block"
            onClick={() => {
              logout();
              void navigate('/login', { replace: true });
            }}
          >
            {t('invitation.switchAccount')}
          </button>
        )}
        <Link to="/medications" className="button button-secondary button-block" onClick={forgetInvitation}>
          {t('invitation.goHome')}
        </Link>
      </div>
    </>
  );
}

/**
 * Signed out: who invites, for whom and with which role (from the link alone, the address
 * masked), and the way in (and back here afterwards). Registering is offered only where this
 * server lets the invited address register.
 */
function SignedOut({ token }: { token: string }) {
  const { t } = useTranslation('circle');
  const preview = useInvitationPreviewQuery(token, true);
  const registration = useRegistrationQuery();
  useEffect(() => rememberInvitation(token), [token]);
  const gone = errorCodeOf(preview.error) === 'invitation_not_found';
  useEffect(() => {
    if (gone) forgetInvitation();
  }, [gone]);
  if (preview.isPending) {
    return (
      <p className="public-subtitle" role="status">
        {t('common.loading')}
      </p>
    );
  }
  if (gone) return <Refusal error={preview.error} />;
  const invitation = preview.data;
  return (
    <>
      <h1>{t('invitation.title')}</h1>
      {invitation ? (
        <>
          <p className="public-subtitle" data-testid="invitation-text">
            {t('invitation.text', { owner: invitation.owner_name, person: invitation.person_name })}
          </p>
          <dl className="detail-list invitation-details">
            <div>
              <dt>{t('invitation.role')}</dt>
              <dd>
                <strong>{t(`roles.${invitation.role}.name`)}</strong>: {t(`roles.${invitation.role}.explain`)}
              </dd>
            </div>
          </dl>
          <p>{t('invitation.signInWith', { email: invitation.email })}</p>
        </>
      ) : (
        <p className="public-subtitle">{t('invitation.signInFirst')}</p>
      )}
      <div className="stack-actions">
        <Link to="/login" className="button button-primary button-block">
          {t('invitation.signIn')}
        </Link>
        {!registration.isPending && registrationOffered(registration.data, true) && (
          <Link to="/register" className="button button-secondary button-block">
            {t('invitation.register')}
          </Link>
        )}
      </div>
    </>
  );
}

/** An invitation to help care for someone (/invite/:token): who invites, for whom, which role. */
export function InvitationScreen() {
  const { t } = useTranslation('circle');
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const { user, isAuthenticated, isLoading } = useAuth();
  const query = useInvitationQuery(token, isAuthenticated);
  const accept = useAcceptInvitation();
  const invitation = query.data ?? null;

  // An invitation that is gone will not become usable by signing in again.
  const gone = errorCodeOf(query.error) === 'invitation_not_found';
  useEffect(() => {
    if (gone) forgetInvitation();
  }, [gone]);

  if (isLoading) return <LoadingScreen />;

  const acceptIt = async () => {
    try {
      const person = await accept.mutateAsync(token);
      forgetInvitation();
      // The medications screen opens on the person now cared for.
      if (user) savePersonChoice(String(user.id), person.id);
      void navigate('/medications', { replace: true });
    } catch {
      // The refusal shows below.
    }
  };

  const content = (() => {
    if (!isAuthenticated) return <SignedOut token={token} />;
    if (query.error) return <Refusal error={query.error} />;
    if (accept.error && errorCodeOf(accept.error) !== null) return <Refusal error={accept.error} />;
    if (!invitation) {
      return (
        <p className="public-subtitle" role="status">
          {t('common.loading')}
        </p>
      );
    }
    return (
      <>
        <h1>{t('invitation.title')}</h1>
        <p className="public-subtitle" data-testid="invitation-text">
          {t('invitation.text', { owner: invitation.owner_name, person: invitation.person_name })}
        </p>
        <dl className="detail-list invitation-details">
          <div>
            <dt>{t('invitation.role')}</dt>
            <dd>
              <strong>{t(`roles.${invitation.role}.name`)}</strong>: {t(`roles.${invitation.role}.explain`)}
            </dd>
          </div>
          <div>
            <dt>{t('invitation.sentTo')}</dt>
            <dd className="break-anywhere">{invitation.email}</dd>
          </div>
        </dl>
        <FormError text={accept.error ? circleErrorText(accept.error, 'invitation.acceptFailed') : null} />
        <div className="stack-actions">
          <button
            type="button"
            className="button button-primary button-block"
            disabled={accept.isPending}
            onClick={() => void acceptIt()}
          >
            {accept.isPending ? t('invitation.accepting') : t('invitation.accept')}
          </button>
          <Link to="/medications" className="button button-secondary button-block" onClick={forgetInvitation}>
            {t('invitation.notNow')}
          </Link>
        </div>
      </>
    );
  })();

  return <PublicFrame>{content}</PublicFrame>;
}

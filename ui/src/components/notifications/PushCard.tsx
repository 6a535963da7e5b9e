import { useTranslation } from '../../i18n/useTranslation';
import { notifyErrorDetail } from '../../notifications/notifyErrors';
import { permissionBadge } from '../../push/pushSubscription';
import { usePushSubscription } from '../../queries/push';
import { DisabledReason, disabledBecause } from '../DisabledReason';

const BADGE_CLASS = {
  enabled: 'badge badge-on',
  blocked: 'badge badge-danger',
  notSet: 'badge badge-neutral',
} as const;

/** The browser's own words for a failed subscribe (a DOMException), when nothing better is known. */
function browserMessage(error: unknown): string | null {
  return error instanceof DOMException && error.message !== '' ? error.message : null;
}

/**
 * SPEC §2 "Notifications page" push card: the permission badge, a Subscribed badge, and the
 * checkbox that subscribes or unsubscribes this browser (SPEC §4 "Push permission"). The
 * switch is on only when this device takes reminders (the browser's subscription is one the
 * server sends to); a refused permission leaves it off and says why.
 */
export function PushCard() {
  const { t } = useTranslation('notify');
  const push = usePushSubscription();
  const badge = permissionBadge(push.permission);

  const onToggle = () => {
    if (push.permission === 'denied') {
      window.alert(t('push.blockedAlert'));
      return;
    }
    void push.toggle();
  };

  const detail = push.error ? (notifyErrorDetail(t, push.error) ?? browserMessage(push.error)) : null;
  // Why the switch cannot be used: the browser cannot take push (its note says so), or this
  // device's subscription is still being looked up. While it updates, its label says so.
  const unsupported = push.support !== 'supported';
  const checking = !unsupported && !push.busy && push.subscribed === null ? t('push.checking') : null;
  const switchReason = unsupported
    ? disabledBecause('push-support', t(`push.support.${push.support}`))
    : disabledBecause('push-checking', checking);

  return (
    <section className="card" aria-labelledby="push-card-title" data-testid="push-card">
      <div className="card-title-row">
        <h3 id="push-card-title">{t('push.title')}</h3>
        <div className="badge-row">
          <span className={BADGE_CLASS[badge]} data-testid="push-permission">
            {t(`push.permission.${badge}`)}
          </span>
          {push.subscribed && (
            <span className="badge badge-on" data-testid="push-subscribed">
              {t('push.subscribed')}
            </span>
          )}
        </div>
      </div>
      <p className="card-text">{t('push.description')}</p>
      {push.support !== 'supported' && (
        <p className="note" id="push-support" data-testid="push-support">
          {t(`push.support.${push.support}`)}
        </p>
      )}
      <label className="check-row">
        <input
          type="checkbox"
          checked={push.subscribed === true}
          disabled={push.busy || push.subscribed === null || unsupported}
          {...switchReason}
          onChange={onToggle}
        />
        <span>{push.busy ? t('push.working') : t('push.toggle')}</span>
      </label>
      <DisabledReason id="push-checking" reason={checking} />
      {push.permission === 'denied' && (
        <p className="note" data-testid="push-blocked">
          {t('push.blockedNote')}
        </p>
      )}
      {push.permission !== 'denied' && push.stale && !push.subscribed && (
        <p className="note" data-testid="push-stale">
          {t('push.staleNote')}
        </p>
      )}
      {push.subscribed && push.devices !== null && (
        <p className="note" data-testid="push-devices">
          {t('push.devices', { count: push.devices })}
        </p>
      )}
      {push.asking && (
        <p className="note" role="status" data-testid="push-asking">
          {t('push.asking')}
        </p>
      )}
      {push.error !== null && (
        <div className="form-error" role="alert">
          <p>{t('push.errors.toggle')}</p>
          {detail && <p>{detail}</p>}
        </div>
      )}
    </section>
  );
}

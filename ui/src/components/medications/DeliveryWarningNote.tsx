import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { DeliveryWarningCode } from '../../api/medicationTypes';
import { notifyErrorText } from '../../notifications/notifyErrors';
import { pushSupport } from '../../push/pushSubscription';
import { subscribeToPush } from '../../queries/push';
import { pushDevicesChanged } from '../../queries/invalidate';
import { useGlobalPreferencesQuery, useSaveGlobalPreferences } from '../../queries/notifications';

/** Where delivery methods are chosen: the Notifications page's Settings tab. */
export const NOTIFICATION_SETTINGS_PATH = '/notifications?tab=settings';

/**
 * Why a medication's reminders can reach nobody, and the fix: push on this device, or e-mail
 * in its place, when no device is subscribed; the notification settings otherwise (`children`
 * may offer a closer way, such as the medication's own settings).
 */
export function DeliveryWarningNote({
  code,
  onFixed,
  children,
}: {
  code: DeliveryWarningCode;
  /** Something was changed: the warning is worked out again. */
  onFixed?: () => void;
  children?: ReactNode;
}) {
  const { t } = useTranslation('meds');
  return (
    <div className="form-warning delivery-warning" data-testid="delivery-warning" data-code={code}>
      <p>{t(`deliveryWarning.${code}`)}</p>
      <div className="button-row">
        {code === 'no_push_device' && <DeliveryFixes onFixed={onFixed} />}
        {children}
        {code !== 'no_method' && (
          <Link to={NOTIFICATION_SETTINGS_PATH} className="button button-secondary button-small">
            {t('deliveryWarning.settings')}
          </Link>
        )}
      </div>
    </div>
  );
}

/** "Turn on push on this device", and "Add e-mail" (e-mail when no device takes a push). */
function DeliveryFixes({ onFixed }: { onFixed?: () => void }) {
  const { t } = useTranslation('meds');
  const { t: tNotify } = useTranslation('notify');
  const client = useQueryClient();
  const prefs = useGlobalPreferencesQuery();
  const savePrefs = useSaveGlobalPreferences();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const fix = async (change: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await change();
      pushDevicesChanged(client);
      onFixed?.();
    } catch (caught) {
      setError(notifyErrorText(tNotify, caught, 'push.errors.toggle'));
    } finally {
      setBusy(false);
    }
  };
  const canPush = pushSupport() === 'supported';
  const canEmail = prefs.data?.email_available === true;

  return (
    <>
      {canPush && (
        <button
          type="button"
          className="button button-primary button-small"
          disabled={busy}
          onClick={() => void fix(() => subscribeToPush())}
        >
          {t('deliveryWarning.turnOnPush')}
        </button>
      )}
      {canEmail && (
        <button
          type="button"
          className="button button-secondary button-small"
          disabled={busy}
          onClick={() =>
            void fix(() => savePrefs.mutateAsync({ email_notifications_enabled: true, email_fallback_enabled: true }))
          }
        >
          {t('deliveryWarning.addEmail')}
        </button>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

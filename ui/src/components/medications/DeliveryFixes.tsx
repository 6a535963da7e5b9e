// The fixes a delivery warning offers when no device takes a push: push on this device, or
// e-mail in its place. Their own chunk (with the push code and the 'notify' texts they use),
// fetched when such a warning shows: Today's first load carries none of it.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { notifyErrorText } from '../../notifications/notifyErrors';
import { pushSupport } from '../../push/pushSubscription';
import { subscribeToPush } from '../../queries/push';
import { pushDevicesChanged } from '../../queries/invalidate';
import { useGlobalPreferencesQuery, useSaveGlobalPreferences } from '../../queries/notifications';

/** "Turn on push on this device", and "Add e-mail" (e-mail when no device takes a push). */
export function DeliveryFixes({ onFixed }: { onFixed?: () => void }) {
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

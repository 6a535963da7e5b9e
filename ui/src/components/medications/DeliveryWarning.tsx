import { lazy, Suspense, useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { DELIVERY_WARNINGS, type Medication } from '../../api/medicationTypes';
import { loadNamespaces } from '../../i18n';
import { DeliveryWarningNote } from './DeliveryWarningNote';

// The preferences dialog and its texts come when a person opens it: Today, which shows this
// warning, does not download them for the few who need them (the service worker has them too).
const NotificationPreferencesDialog = lazy(async () => {
  const [dialog] = await Promise.all([
    import('../notifications/NotificationPreferencesDialog'),
    loadNamespaces(['notifyPrefs']),
  ]);
  return { default: dialog.NotificationPreferencesDialog };
});

/**
 * A medication whose reminders can reach nobody, said plainly where the person looks, with
 * the fix: push on this device or e-mail in its place when no device is subscribed, the
 * settings when e-mail cannot go out or every method is off.
 */
export function DeliveryWarning({
  medication,
  onSettingsClosed,
}: {
  medication: Pick<Medication, 'id' | 'name' | 'delivery_warning'>;
  /** The settings may have changed: the warning is worked out again by a reload. */
  onSettingsClosed?: () => void;
}) {
  const { t } = useTranslation('meds');
  const [open, setOpen] = useState(false);
  // A warning this build has no words for (a newer server's) is left out, like none.
  const code = DELIVERY_WARNINGS.find((known) => known === medication.delivery_warning);
  if (code === undefined) return null;
  return (
    <DeliveryWarningNote code={code} onFixed={onSettingsClosed}>
      {code === 'no_method' && (
        <button type="button" className="button button-secondary button-small" onClick={() => setOpen(true)}>
          {t('deliveryWarning.fix')}
        </button>
      )}
      {open && (
        <Suspense fallback={null}>
          <NotificationPreferencesDialog
            medication={medication}
            onClose={() => {
              setOpen(false);
              onSettingsClosed?.();
            }}
          />
        </Suspense>
      )}
    </DeliveryWarningNote>
  );
}

import { lazy, Suspense, type ReactNode } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { Link } from 'react-router-dom';
import type { DeliveryWarningCode } from '../../api/medicationTypes';
import { loadNamespaces } from '../../i18n';

// Push on this device and e-mail in its place, with the push code and the 'notify' texts their
// errors need: fetched when a warning that offers them shows, not with Today.
const DeliveryFixes = lazy(async () => {
  const [fixes] = await Promise.all([import('./DeliveryFixes'), loadNamespaces(['notify'])]);
  return { default: fixes.DeliveryFixes };
});

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
        {code === 'no_push_device' && (
          <Suspense fallback={null}>
            <DeliveryFixes onFixed={onFixed} />
          </Suspense>
        )}
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

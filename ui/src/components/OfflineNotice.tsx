import { useTranslation } from '../i18n/useTranslation';
import { useOffline } from '../api/connectivity';

/** Said while the server is out of reach: what is on screen is what the app kept. */
export function OfflineNotice() {
  const { t } = useTranslation();
  const offline = useOffline();
  if (!offline) return null;
  return (
    <p className="offline-notice" role="status" data-testid="offline-notice">
      {t('offline.notice')}
    </p>
  );
}

import { useTranslation } from 'react-i18next';
import { Dialog } from '../Dialog';

export interface PreferencesTarget {
  id: number;
  name: string;
}

/**
 * SPEC §2 "Notification preferences dialog": global mode without `medication`, per-medication
 * mode with it. (Placeholder body: being replaced by the real dialog.)
 */
export function NotificationPreferencesDialog({
  medication,
  onClose,
}: {
  medication?: PreferencesTarget;
  onClose: () => void;
}) {
  const { t } = useTranslation('meds');
  return (
    <Dialog
      title={medication ? t('notifications.title', { name: medication.name }) : t('notifications.title', { name: '' })}
      onClose={onClose}
      actions={
        <button type="button" className="button button-secondary" onClick={onClose} data-autofocus>
          {t('common.cancel')}
        </button>
      }
    >
      <p>{t('notifications.later')}</p>
    </Dialog>
  );
}

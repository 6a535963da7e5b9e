import { useTranslation } from 'react-i18next';
import { Dialog } from '../Dialog';

/**
 * SPEC §2 "Notification preferences dialog" for one medication. Reminders arrive in a later
 * version; until then the dialog says so and offers nothing that pretends to work.
 */
export function NotificationSettingsDialog({ name, onClose }: { name: string; onClose: () => void }) {
  const { t } = useTranslation('meds');
  return (
    <Dialog
      title={t('notifications.title', { name })}
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

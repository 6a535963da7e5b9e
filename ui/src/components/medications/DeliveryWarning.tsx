import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Medication } from '../../api/medicationTypes';
import { NotificationPreferencesDialog } from '../notifications/NotificationPreferencesDialog';

/**
 * A medication whose reminders go out by no method at all (its own method is e-mail while
 * e-mail is off, say): said plainly, with the way to its settings, instead of silence.
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
  if (medication.delivery_warning !== 'no_method') return null;
  return (
    <div className="form-warning delivery-warning" data-testid="delivery-warning">
      <p>{t('deliveryWarning.no_method')}</p>
      <button type="button" className="button button-secondary button-small" onClick={() => setOpen(true)}>
        {t('deliveryWarning.fix')}
      </button>
      {open && (
        <NotificationPreferencesDialog
          medication={medication}
          onClose={() => {
            setOpen(false);
            onSettingsClosed?.();
          }}
        />
      )}
    </div>
  );
}

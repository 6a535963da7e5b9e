import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Medication } from '../../api/medicationTypes';
import { medsErrorText } from '../../medications/errors';
import { useDeleteMedication } from '../../queries/medications';
import { Dialog } from '../Dialog';
import { FormError } from './FormError';

interface DeleteMedicationDialogProps {
  medication: Medication;
  onClose: () => void;
  onDeleted: () => void;
}

/** Deleting asks first; the history stays unless the person ticks the box (DESIGN §3). */
export function DeleteMedicationDialog({ medication, onClose, onDeleted }: DeleteMedicationDialogProps) {
  const { t } = useTranslation('meds');
  const [withHistory, setWithHistory] = useState(false);
  const remove = useDeleteMedication();
  // Stays busy after success too: the dialog is closing.
  const busy = remove.isPending || remove.isSuccess;
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setError(null);
    try {
      await remove.mutateAsync({ id: medication.id, deleteHistory: withHistory });
      onDeleted();
    } catch (err) {
      setError(medsErrorText(t, err, 'errors.delete'));
    }
  };

  return (
    <Dialog
      title={t('delete.title', { name: medication.name })}
      onClose={busy ? undefined : onClose}
      className="dialog-danger"
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy} data-autofocus>
            {t('common.cancel')}
          </button>
          <button type="button" className="button button-danger" onClick={() => void confirm()} disabled={busy}>
            {busy ? t('delete.deleting') : t('delete.confirm')}
          </button>
        </>
      }
    >
      <FormError text={error} />
      <p>{t('delete.text')}</p>
      <label className="check-row">
        <input type="checkbox" checked={withHistory} onChange={(event) => setWithHistory(event.target.checked)} />
        <span>{t('delete.withHistory')}</span>
      </label>
    </Dialog>
  );
}

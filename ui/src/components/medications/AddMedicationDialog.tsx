import { useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Medication } from '../../api/medicationTypes';
import { medsErrorText, problemText } from '../../medications/errors';
import {
  emptyMedicationForm,
  medicationInput,
  medicationProblem,
  type MedicationForm,
} from '../../medications/medicationForm';
import { useCreateMedication } from '../../queries/medications';
import { Dialog } from '../Dialog';
import { FormError } from './FormError';
import { MedicationFields } from './MedicationFields';

interface AddMedicationDialogProps {
  onClose: () => void;
  onAdded: (medication: Medication) => void;
}

const FORM_ID = 'add-medication-form';

export function AddMedicationDialog({ onClose, onAdded }: AddMedicationDialogProps) {
  const { t } = useTranslation('meds');
  const [form, setForm] = useState<MedicationForm>(emptyMedicationForm);
  const create = useCreateMedication();
  // Stays busy after success too: the dialog is closing.
  const busy = create.isPending || create.isSuccess;
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = medicationProblem(form);
    if (problem) {
      setError(problemText(t, problem));
      return;
    }
    setError(null);
    try {
      onAdded(await create.mutateAsync(medicationInput(form, true)));
    } catch (err) {
      setError(medsErrorText(t, err, 'errors.add'));
    }
  };

  return (
    <Dialog
      title={t('add.title')}
      onClose={busy ? undefined : onClose}
      className="dialog-wide"
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button type="submit" form={FORM_ID} className="button button-primary" disabled={busy}>
            {busy ? t('common.saving') : t('add.submit')}
          </button>
        </>
      }
    >
      <form id={FORM_ID} className="form form-tight" noValidate onSubmit={(event) => void submit(event)}>
        <FormError text={error} />
        <MedicationFields
          idPrefix="add-med"
          form={form}
          onChange={(changes) => setForm((f) => ({ ...f, ...changes }))}
          withInventory
        />
      </form>
    </Dialog>
  );
}

import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Medication } from '../../api/medicationTypes';
import { problemText } from '../../medications/errors';
import { recordErrorText } from '../../medications/recordErrors';
import {
  emptyMedicationForm,
  medicationInput,
  medicationProblem,
  type MedicationForm,
} from '../../medications/medicationForm';
import { usePersonScope } from '../../people/PersonScopeContext';
import { medicationOwners } from '../../people/roles';
import { usePeople } from '../../people/usePeople';
import { useCreateMedication } from '../../queries/medications';
import { usePersonLabel } from '../people/PersonSwitcher';
import { Dialog } from '../Dialog';
import { FormDialogActions } from '../FormDialogActions';
import { FormError } from './FormError';
import { MedicationFields } from './MedicationFields';

interface AddMedicationDialogProps {
  onClose: () => void;
  onAdded: (medication: Medication) => void;
}

const FORM_ID = 'add-medication-form';

export function AddMedicationDialog({ onClose, onAdded }: AddMedicationDialogProps) {
  const { t } = useTranslation('meds');
  const { t: tc } = useTranslation('circle');
  const { people, self, roleOf } = usePeople();
  const { scope } = usePersonScope();
  const label = usePersonLabel();
  const owners = people ? medicationOwners(people) : [];
  // The person chosen in the top bar when the viewer may add for them, else the account holder.
  const [form, setForm] = useState<MedicationForm>(() =>
    emptyMedicationForm(owners.find((p) => p.id === scope)?.id ?? self?.id ?? null),
  );
  const ownPerson = form.personId !== null && roleOf(form.personId) === 'owner';
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
      onAdded(await create.mutateAsync(medicationInput(form, true, ownPerson && form.frequency !== 'as_needed')));
    } catch (err) {
      setError(recordErrorText(t, err, 'errors.add'));
    }
  };

  return (
    <Dialog
      title={t('add.title')}
      onClose={busy ? undefined : onClose}
      className="dialog-wide"
      actions={<FormDialogActions formId={FORM_ID} busy={busy} submitLabel={t('add.submit')} onCancel={onClose} />}
    >
      <form id={FORM_ID} className="form form-tight" noValidate onSubmit={(event) => void submit(event)}>
        <FormError text={error} />
        {owners.length > 1 && (
          <div className="field">
            <label htmlFor="add-med-person">{tc('medication.person')}</label>
            <select
              id="add-med-person"
              value={form.personId ?? ''}
              onChange={(event) =>
                // Another person has other carers: the escalation starts over.
                setForm((f) => ({
                  ...f,
                  personId: Number(event.target.value),
                  escalation: { ...f.escalation, enabled: false, carers: [] },
                }))
              }
            >
              {owners.map((person) => (
                <option key={person.id} value={person.id}>
                  {label(person)}
                </option>
              ))}
            </select>
          </div>
        )}
        <MedicationFields
          idPrefix="add-med"
          form={form}
          onChange={(changes) => setForm((f) => ({ ...f, ...changes }))}
          withInventory
          personId={form.personId}
          escalationEditable={ownPerson}
        />
      </form>
    </Dialog>
  );
}

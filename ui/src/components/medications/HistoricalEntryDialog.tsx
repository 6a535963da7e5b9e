import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { DOSE_STATUSES, type DoseStatus, type DoseWarning, type Medication } from '../../api/medicationTypes';
import { defaultDoseQuantity, historicalEntryProblem, type HistoricalEntryFields } from '../../medications/dosage';
import { medsErrorText, problemText } from '../../medications/errors';
import { dateInputValue, localMoment } from '../../medications/format';
import { useLogDose } from '../../queries/medications';
import { Dialog } from '../Dialog';
import { DoseFields } from './DoseFields';
import { EntryMomentFields } from './EntryMomentFields';
import { FormDialogActions } from '../FormDialogActions';
import { FormError } from './FormError';

interface HistoricalEntryDialogProps {
  medications: Medication[];
  onClose: () => void;
  /** The entry was recorded; `warning` when its stock could not follow. */
  onAdded: (warning: DoseWarning | null, medicationName: string) => void;
}

const FORM_ID = 'historical-entry-form';

/** SPEC §2/§5 "Add Historical Entry": a dose logged after the fact, never in the future. */
export function HistoricalEntryDialog({ medications, onClose, onAdded }: HistoricalEntryDialogProps) {
  const { t } = useTranslation('meds');
  const [fields, setFields] = useState<HistoricalEntryFields>(() => ({
    medicationId: medications.length === 1 ? String(medications[0]?.id ?? '') : '',
    date: dateInputValue(new Date()),
    time: '',
    quantity: defaultDoseQuantity(medications.length === 1 ? medications[0]?.default_quantity : null),
    unit: medications.length === 1 ? (medications[0]?.unit ?? '') : '',
  }));
  const [status, setStatus] = useState<DoseStatus>('taken');
  const [affectInventory, setAffectInventory] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const logDose = useLogDose();
  // Stays busy after success too: the dialog is closing.
  const busy = logDose.isPending || logDose.isSuccess;
  const medication = medications.find((m) => String(m.id) === fields.medicationId) ?? null;
  const change = (changes: Partial<HistoricalEntryFields>) => setFields((f) => ({ ...f, ...changes }));

  const chooseMedication = (value: string) => {
    const chosen = medications.find((m) => String(m.id) === value);
    change({
      medicationId: value,
      ...(chosen ? { quantity: defaultDoseQuantity(chosen.default_quantity), unit: chosen.unit } : {}),
    });
  };

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = historicalEntryProblem(fields, new Date());
    const moment = localMoment(fields.date, fields.time);
    if (problem || !moment || !medication) {
      setError(problemText(t, problem ?? { key: 'validation.dateTimeRequired' }));
      return;
    }
    setError(null);
    try {
      const result = await logDose.mutateAsync({
        medicationId: medication.id,
        dose: {
          taken: moment.toISOString(),
          status,
          quantity: Number(fields.quantity),
          dosage_unit: fields.unit,
          affect_inventory: affectInventory,
        },
      });
      onAdded(result.warning, medication.name);
    } catch (err) {
      setError(medsErrorText(t, err, 'errors.addHistorical'));
    }
  };

  return (
    <Dialog
      title={t('historical.title')}
      onClose={busy ? undefined : onClose}
      actions={<FormDialogActions formId={FORM_ID} busy={busy} submitLabel={t('historical.submit')} onCancel={onClose} />}
    >
      <form id={FORM_ID} className="form form-tight" noValidate onSubmit={(event) => void submit(event)}>
        <FormError text={error} />
        <div className="field">
          <label htmlFor="historical-medication">{t('historical.medication')}</label>
          <select
            id="historical-medication"
            value={fields.medicationId}
            onChange={(event) => chooseMedication(event.target.value)}
            data-autofocus
          >
            <option value="">{t('historical.selectMedication')}</option>
            {medications.map((m) => (
              <option key={m.id} value={String(m.id)}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
        <fieldset className="choice-group">
          <legend>{t('dose.status')}</legend>
          <div className="segmented">
            {DOSE_STATUSES.map((value) => (
              <label key={value} className="segment">
                <input
                  type="radio"
                  name="historical-status"
                  value={value}
                  checked={status === value}
                  onChange={() => setStatus(value)}
                />
                <span>{t(`status.${value}`)}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <EntryMomentFields idPrefix="historical" date={fields.date} time={fields.time} onChange={change} />
        <DoseFields
          idPrefix="historical"
          quantity={fields.quantity}
          unit={fields.unit}
          onQuantity={(quantity) => change({ quantity })}
          onUnit={(unit) => change({ unit })}
          medication={medication}
          usesStock={status === 'taken' && affectInventory}
        />
        <label className="check-row">
          <input
            type="checkbox"
            checked={affectInventory}
            onChange={(event) => setAffectInventory(event.target.checked)}
          />
          <span>{t('historical.affectInventory')}</span>
        </label>
      </form>
    </Dialog>
  );
}

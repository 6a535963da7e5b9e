import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { DOSE_STATUSES, type DoseInput, type DoseStatus, type Medication } from '../../api/medicationTypes';
import { defaultDoseQuantity, dosageProblem } from '../../medications/dosage';
import { problemText } from '../../medications/errors';
import { Dialog } from '../Dialog';
import { DoseFields } from './DoseFields';
import { FormError } from './FormError';

interface DoseDialogProps {
  medication: Medication;
  status: DoseStatus;
  /** The failure to show under "Error logging dosage" (5 s), owned by the screen. */
  error: string | null;
  onSubmit: (dose: DoseInput) => Promise<void>;
  onClose: () => void;
}

/** The dosage confirmation of SPEC §5: quantity and unit, then the dose is logged. */
export function DoseDialog({ medication, status: initialStatus, error, onSubmit, onClose }: DoseDialogProps) {
  const { t } = useTranslation('meds');
  const [status, setStatus] = useState<DoseStatus>(initialStatus);
  const [quantity, setQuantity] = useState(() => defaultDoseQuantity(medication.default_quantity));
  const [unit, setUnit] = useState(medication.unit);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const formId = `dose-form-${medication.id}`;
  const usesStock = status === 'taken' && medication.inventory?.enabled === true;

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const invalid = dosageProblem(quantity, unit);
    if (invalid) {
      setProblem(problemText(t, invalid));
      return;
    }
    // A dose the stock cannot count is still recorded (the stock stays as it is and the
    // server says so): a dose the person took is never refused.
    setProblem(null);
    setBusy(true);
    try {
      await onSubmit({ status, quantity: Number(quantity), dosage_unit: unit });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={t('dose.title', { name: medication.name })}
      onClose={busy ? undefined : onClose}
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button type="submit" form={formId} className="button button-primary" disabled={busy}>
            {busy ? t('dose.logging') : t(`dose.submit.${status}`)}
          </button>
        </>
      }
    >
      <form id={formId} className="form form-tight" noValidate onSubmit={(event) => void submit(event)}>
        <FormError text={error} heading={t('today.errorHeading')} />
        <FormError text={problem} />
        <fieldset className="choice-group">
          <legend>{t('dose.status')}</legend>
          <div className="segmented">
            {DOSE_STATUSES.map((value) => (
              <label key={value} className="segment">
                <input
                  type="radio"
                  name={`${formId}-status`}
                  value={value}
                  checked={status === value}
                  onChange={() => setStatus(value)}
                />
                <span>{t(`status.${value}`)}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <DoseFields
          idPrefix={formId}
          quantity={quantity}
          unit={unit}
          onQuantity={setQuantity}
          onUnit={setUnit}
          medication={medication}
          usesStock={usesStock}
        />
      </form>
    </Dialog>
  );
}

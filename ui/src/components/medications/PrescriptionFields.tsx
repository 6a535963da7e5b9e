import { useTranslation } from '../../i18n/useTranslation';
import type { PrescriptionForm } from '../../medications/medicationForm';
import { SwitchField } from '../notifications/preferenceFields';

interface PrescriptionFieldsProps {
  idPrefix: string;
  form: PrescriptionForm;
  onChange: (prescription: PrescriptionForm) => void;
}

/**
 * "Prescription": who prescribed it, the pharmacy that fills it (its phone and ordering page),
 * when it was written and expires, the refills, and how many days ahead to order one.
 */
export function PrescriptionFields({ idPrefix, form, onChange }: PrescriptionFieldsProps) {
  const { t } = useTranslation(['meds', 'prescriptions']);
  const id = (name: string) => `${idPrefix}-prescription-${name}`;
  const change = (changes: Partial<PrescriptionForm>) => onChange({ ...form, ...changes });
  type TextName = 'prescriber' | 'pharmacyName' | 'pharmacyPhone' | 'pharmacyUrl' | 'prescribedOn' | 'expiresOn';
  const text = (name: TextName, type: 'text' | 'tel' | 'url' | 'date', maxLength?: number) => (
    <div className="field">
      <label htmlFor={id(name)}>{t(`prescriptions:prescription.${name === 'expiresOn' ? 'expiresOnField' : name}`)}</label>
      <input
        id={id(name)}
        type={type}
        maxLength={maxLength}
        value={form[name]}
        onChange={(event) => change({ [name]: event.target.value })}
      />
    </div>
  );
  const count = (name: 'refillsAuthorised' | 'refillsLeft' | 'orderDaysBefore', min: number, max: number) => (
    <div className="field">
      <label htmlFor={id(name)}>{t(`prescriptions:prescription.${name}`)}</label>
      <input
        id={id(name)}
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        step={1}
        value={form[name]}
        onChange={(event) => change({ [name]: event.target.value })}
      />
    </div>
  );

  return (
    <section className="form-section" aria-labelledby={id('title')} data-testid="prescription-fields">
      <SwitchField
        labelId={id('title')}
        label={t('prescriptions:prescription.title')}
        hint={t('prescriptions:prescription.hint')}
        checked={form.enabled}
        onChange={(enabled) => change({ enabled })}
      />
      {form.enabled && (
        <>
          {text('prescriber', 'text', 200)}
          {text('pharmacyName', 'text', 200)}
          {text('pharmacyPhone', 'tel', 40)}
          {text('pharmacyUrl', 'url', 500)}
          {text('prescribedOn', 'date')}
          {text('expiresOn', 'date')}
          {count('refillsAuthorised', 0, 99)}
          {count('refillsLeft', 0, 99)}
          {count('orderDaysBefore', 1, 90)}
        </>
      )}
    </section>
  );
}

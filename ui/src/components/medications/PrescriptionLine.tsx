import { useTranslation } from '../../i18n/useTranslation';
import type { Medication } from '../../api/medicationTypes';
import { FormError } from './FormError';
import { PharmacyContact, refillWords, useMarkOrdered } from './refillWords';
import { useMedsFormat } from './useMedsFormat';

/**
 * A medication's prescription on its card: the pharmacy (a call and its ordering page), the
 * refills left and the expiry; and, when a refill or a new prescription needs ordering, by
 * when and why, with "Mark as ordered" for those who may log doses.
 */
export function PrescriptionLine({ medication, canOrder }: { medication: Medication; canOrder: boolean }) {
  const { t } = useTranslation(['meds', 'prescriptions']);
  const format = useMedsFormat();
  const { order, busy, error } = useMarkOrdered(medication.id);
  const p = medication.prescription;
  if (!p) return null;
  const need = p.refill;
  const facts = [
    p.prescriber !== '' ? t('prescriptions:prescription.by', { prescriber: p.prescriber }) : null,
    p.refills_left !== null ? t('prescriptions:prescription.refillsLeftCount', { count: p.refills_left }) : null,
    p.expires_on ? t('prescriptions:prescription.expires', { date: format.plainDate(p.expires_on) }) : null,
  ].filter((fact): fact is string => fact !== null);

  return (
    <div className="med-prescription" data-testid="prescription-line">
      {facts.length > 0 && <p className="muted">{facts.join(' · ')}</p>}
      <PharmacyContact prescription={p} />
      {need && (
        <div className={need.ordered ? 'notice' : 'notice notice-warning'} role="status">
          {need.ordered ? (
            <p>{t('prescriptions:prescription.ordered', { date: format.dateTime(p.ordered_at ?? '') })}</p>
          ) : (
            <p>{refillWords(t, need, format.plainDate)}</p>
          )}
          {!need.ordered && canOrder && (
            <button
              type="button"
              className="button button-secondary button-small"
              disabled={busy}
              onClick={() => void order()}
            >
              {t('prescriptions:prescription.markOrdered')}
            </button>
          )}
        </div>
      )}
      <FormError text={error} />
    </div>
  );
}

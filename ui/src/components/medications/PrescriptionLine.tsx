import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Medication, RefillNeed } from '../../api/medicationTypes';
import { medsErrorText } from '../../medications/errors';
import { useMarkRefillOrdered } from '../../queries/prescriptions';
import { FormError } from './FormError';
import { useMedsFormat } from './useMedsFormat';

/**
 * A medication's prescription on its card: the pharmacy (a call and its ordering page), the
 * refills left and the expiry; and, when a refill or a new prescription needs ordering, by
 * when and why, with "Mark as ordered" for those who may log doses.
 */
export function PrescriptionLine({ medication, canOrder }: { medication: Medication; canOrder: boolean }) {
  const { t } = useTranslation(['meds', 'prescriptions']);
  const format = useMedsFormat();
  const mark = useMarkRefillOrdered();
  const [error, setError] = useState<string | null>(null);
  const p = medication.prescription;
  if (!p) return null;
  const need = p.refill;
  const facts = [
    p.prescriber !== '' ? t('prescriptions:prescription.by', { prescriber: p.prescriber }) : null,
    p.refills_left !== null ? t('prescriptions:prescription.refillsLeftCount', { count: p.refills_left }) : null,
    p.expires_on ? t('prescriptions:prescription.expires', { date: format.plainDate(p.expires_on) }) : null,
  ].filter((fact): fact is string => fact !== null);

  const order = async () => {
    setError(null);
    try {
      await mark.mutateAsync(medication.id);
    } catch (err) {
      setError(medsErrorText(t, err, 'errors.update'));
    }
  };

  return (
    <div className="med-prescription" data-testid="prescription-line">
      {facts.length > 0 && <p className="muted">{facts.join(' · ')}</p>}
      {(p.pharmacy_name !== '' || p.pharmacy_phone !== '' || p.pharmacy_url !== '') && (
        <p className="muted">
          {p.pharmacy_name}
          {p.pharmacy_phone !== '' && (
            <>
              {' '}
              <a href={`tel:${p.pharmacy_phone.replace(/[^0-9+]/g, '')}`}>{p.pharmacy_phone}</a>
            </>
          )}
          {p.pharmacy_url !== '' && (
            <>
              {' '}
              <a href={p.pharmacy_url} target="_blank" rel="noopener noreferrer">
                {t('prescriptions:prescription.orderOnline')}
              </a>
            </>
          )}
        </p>
      )}
      {need && (
        <div className={need.ordered ? 'notice' : 'notice notice-warning'} role="status">
          {need.ordered ? (
            <p>{t('prescriptions:prescription.ordered', { date: format.dateTime(p.ordered_at ?? '') })}</p>
          ) : (
            <p>
              {t(orderKey(need), { date: format.plainDate(need.order_by) })}{' '}
              {t(need.reason === 'stock' ? 'prescriptions:prescription.runsOut' : 'prescriptions:prescription.expiresOn', {
                date: format.plainDate(need.due_on),
              })}
            </p>
          )}
          {!need.ordered && canOrder && (
            <button
              type="button"
              className="button button-secondary button-small"
              disabled={mark.isPending}
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

/** What to order, and by when: a day still to come, or now once that day has passed. */
function orderKey(need: RefillNeed): string {
  const what = need.new_prescription_needed ? 'askNew' : 'orderRefill';
  return `prescriptions:prescription.${what}${need.late ? 'Now' : ''}`;
}

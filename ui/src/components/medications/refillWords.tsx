import type { TFunction } from '../../i18n';
import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Prescription, RefillNeed } from '../../api/medicationTypes';
import { medsErrorText } from '../../medications/errors';
import { useMarkRefillOrdered } from '../../queries/prescriptions';

/**
 * What to order, by when and why: "Order a refill today: the stock runs out around 12/8/2026."
 * The server names a need from its day to order on (`order_by`), so a need that is not late
 * is one to order today; once that day has passed it says "now". With no refills left (or the
 * prescription expiring) it asks for a new prescription. `t` has the 'prescriptions' texts.
 */
export function refillWords(t: TFunction, need: RefillNeed, plainDate: (date: string) => string): string {
  const what = need.new_prescription_needed ? 'askNew' : 'orderRefill';
  const order = t(`prescriptions:prescription.${what}${need.late ? 'Now' : ''}`);
  const why = t(need.reason === 'stock' ? 'prescriptions:prescription.runsOut' : 'prescriptions:prescription.expiresOn', {
    date: plainDate(need.due_on),
  });
  return `${order} ${why}`;
}

/** A phone number as a `tel:` address: its digits and a leading +. */
export function telHref(phone: string): string {
  return `tel:${phone.replace(/[^0-9+]/g, '')}`;
}

/** The pharmacy that fills a prescription: its name, its phone to call and its ordering page. */
export function PharmacyContact({ prescription: p }: { prescription: Prescription }) {
  const { t } = useTranslation('prescriptions');
  if (p.pharmacy_name === '' && p.pharmacy_phone === '' && p.pharmacy_url === '') return null;
  return (
    <p className="muted" data-testid="pharmacy">
      {p.pharmacy_name}
      {p.pharmacy_phone !== '' && (
        <>
          {' '}
          <a href={telHref(p.pharmacy_phone)}>{p.pharmacy_phone}</a>
        </>
      )}
      {p.pharmacy_url !== '' && (
        <>
          {' '}
          <a href={p.pharmacy_url} target="_blank" rel="noopener noreferrer">
            {t('prescription.orderOnline')}
          </a>
        </>
      )}
    </p>
  );
}

/**
 * "Mark as ordered" for a medication's refill: `order` sends it and calls `onOrdered` once it
 * is saved; `error` says in the person's language why it was refused.
 */
export function useMarkOrdered(medicationId: number, onOrdered?: () => void) {
  const { t } = useTranslation('meds');
  const mark = useMarkRefillOrdered();
  const [error, setError] = useState<string | null>(null);
  const order = async () => {
    setError(null);
    try {
      await mark.mutateAsync(medicationId);
      onOrdered?.();
    } catch (err) {
      setError(medsErrorText(t, err, 'errors.update'));
    }
  };
  return { order, busy: mark.isPending, error };
}

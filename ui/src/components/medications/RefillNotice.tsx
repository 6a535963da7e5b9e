import { useId } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Medication, Prescription, RefillNeed } from '../../api/medicationTypes';
import { needsOrdering } from '../../medications/refill';
import '../../styles/refill.css';
import { FormError } from './FormError';
import { PharmacyContact, refillWords, useMarkOrdered } from './refillWords';
import { useMedsFormat } from './useMedsFormat';

/** A medication with a refill to order that is not ordered yet. */
type ToOrder = Medication & { prescription: Prescription & { refill: RefillNeed } };

const toOrder = (m: Medication): m is ToOrder => needsOrdering(m);

interface RefillNoticeProps {
  /** The medications on screen: those whose refill needs ordering are listed, the first due first. */
  medications: readonly Medication[];
  /** Whether the viewer may mark a medication's refill ordered (their role lets them log). */
  canOrder: (medication: Medication) => boolean;
  /** Whose medication, when the screen shows more than one person's. */
  personOf?: (medication: Medication) => string | null;
  /** A refill was marked ordered: the confirmation to show (the medication leaves the notice). */
  onOrdered: (confirmation: string) => void;
}

/**
 * Today's "To order": per medication whose refill or new prescription is due, by when (or now,
 * once that day has passed) and why, the pharmacy to call or order from, and "Mark as ordered".
 * Its own chunk with its texts, fetched only when something needs ordering.
 */
export function RefillNotice({ medications, canOrder, personOf, onOrdered }: RefillNoticeProps) {
  const { t } = useTranslation('prescriptions');
  const titleId = useId();
  // Nothing to order (a refill just marked ordered was the last): the notice goes.
  const sorted = medications.filter(toOrder).sort((a, b) => a.prescription.refill.due_on.localeCompare(b.prescription.refill.due_on));
  if (sorted.length === 0) return null;
  return (
    <section className="card refill-notice" aria-labelledby={titleId} data-testid="refill-notice">
      <h2 id={titleId}>{t('today.title')}</h2>
      <ul className="refill-notice-list">
        {sorted.map((m) => (
          <li key={m.id}>
            <RefillItem medication={m} canOrder={canOrder(m)} person={personOf?.(m) ?? null} onOrdered={onOrdered} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function RefillItem({
  medication: m,
  canOrder,
  person,
  onOrdered,
}: {
  medication: ToOrder;
  canOrder: boolean;
  person: string | null;
  onOrdered: (confirmation: string) => void;
}) {
  const { t } = useTranslation(['meds', 'prescriptions']);
  const format = useMedsFormat();
  const p = m.prescription;
  const need = p.refill;
  const { order, busy, error } = useMarkOrdered(m.id, () =>
    onOrdered(t(need.new_prescription_needed ? 'prescriptions:today.askedFor' : 'prescriptions:today.ordered', { name: m.name })),
  );

  return (
    <div className={need.late ? 'refill-item is-late' : 'refill-item'} data-testid="refill-item">
      <p className="refill-what">
        {person && (
          <span className="person-tag" data-testid="medication-person">
            {person}
          </span>
        )}
        <strong>{m.name}</strong>
      </p>
      <p>{refillWords(t, need, format.plainDate)}</p>
      <PharmacyContact prescription={p} />
      {canOrder && (
        <div className="button-row">
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={busy}
            aria-label={t('prescriptions:today.markOrderedFor', { name: m.name })}
            onClick={() => void order()}
          >
            {t('prescriptions:prescription.markOrdered')}
          </button>
        </div>
      )}
      <FormError text={error} />
    </div>
  );
}

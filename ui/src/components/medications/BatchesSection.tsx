import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Batch, BatchInput, NewBatchInput } from '../../api/medicationTypes';
import { parseAmount } from '../../medications/dosage';
import { medsErrorText } from '../../medications/errors';
import { recordErrorText } from '../../medications/recordErrors';
import { useBatchMutation, useBatchesQuery } from '../../queries/batches';
import { NumberField } from '../NumberField';
import { FormError } from './FormError';
import { useMedsFormat } from './useMedsFormat';

/** A batch as typed. */
interface BatchForm {
  quantity: string;
  remaining: string;
  expiresOn: string;
  lot: string;
}

const EMPTY: BatchForm = { quantity: '', remaining: '', expiresOn: '', lot: '' };

function formOf(batch: Batch): BatchForm {
  return {
    quantity: String(batch.quantity),
    remaining: String(batch.remaining),
    expiresOn: batch.expires_on,
    lot: batch.lot ?? '',
  };
}

/** The batch to send, or the key of what is wrong with the form. */
function batchInput(form: BatchForm, editing: boolean): (NewBatchInput & BatchInput) | { problem: string } {
  const quantity = parseAmount(form.quantity);
  if (quantity === null || quantity <= 0) return { problem: 'inventory.batches.errors.quantity' };
  if (!/^\d{4}-\d{2}-\d{2}$/.test(form.expiresOn)) return { problem: 'inventory.batches.errors.expiry' };
  const input: NewBatchInput & BatchInput = { quantity, expires_on: form.expiresOn, lot: form.lot.trim() || null };
  if (editing) {
    const remaining = parseAmount(form.remaining);
    if (remaining === null || remaining < 0 || remaining > quantity) return { problem: 'inventory.batches.errors.remaining' };
    input.remaining = remaining;
  }
  return input;
}

interface BatchFieldsProps {
  idPrefix: string;
  form: BatchForm;
  unit: string;
  editing: boolean;
  onChange: (changes: Partial<BatchForm>) => void;
}

function BatchFields({ idPrefix, form, unit, editing, onChange }: BatchFieldsProps) {
  const { t } = useTranslation('meds');
  return (
    <div className="field-row">
      <NumberField
        id={`${idPrefix}-quantity`}
        label={t('inventory.batches.quantity', { unit })}
        kind="stock"
        value={form.quantity}
        onChange={(quantity) => onChange({ quantity })}
        required
      />
      {editing && (
        <NumberField
          id={`${idPrefix}-remaining`}
          label={t('inventory.batches.remainingField', { unit })}
          kind="stock"
          value={form.remaining}
          onChange={(remaining) => onChange({ remaining })}
        />
      )}
      <div className="field">
        <label htmlFor={`${idPrefix}-expires`}>{t('inventory.batches.expiresOn')}</label>
        <input
          id={`${idPrefix}-expires`}
          type="date"
          required
          value={form.expiresOn}
          onChange={(event) => onChange({ expiresOn: event.currentTarget.value })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-lot`}>{t('inventory.batches.lot')}</label>
        <input
          id={`${idPrefix}-lot`}
          maxLength={100}
          value={form.lot}
          onChange={(event) => onChange({ lot: event.currentTarget.value })}
        />
      </div>
    </div>
  );
}

interface BatchesSectionProps {
  medicationId: number;
  /** The unit the stock is counted in (the medication's unit when it keeps none yet). */
  unit: string;
  /** Whether the medication keeps a single count now (the first batch replaces it). */
  counted: boolean;
}

/** The medication's stock batches: each with what is left and its expiry, and add, edit, delete. */
export function BatchesSection({ medicationId, unit, counted }: BatchesSectionProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const query = useBatchesQuery(medicationId);
  const mutation = useBatchMutation(medicationId);
  const [adding, setAdding] = useState<BatchForm>(EMPTY);
  const [editing, setEditing] = useState<{ id: number; form: BatchForm } | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = mutation.isPending;
  const batches = query.data?.batches ?? [];
  const shownUnit = query.data?.unit ?? unit;

  const send = async (call: Parameters<typeof mutation.mutateAsync>[0], done: () => void) => {
    setError(null);
    try {
      await mutation.mutateAsync(call);
      done();
    } catch (err) {
      setError(recordErrorText(t, err, 'inventory.batches.errors.save'));
    }
  };

  const add = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = batchInput(adding, false);
    if ('problem' in input) {
      setError(t(input.problem));
      return;
    }
    void send({ input }, () => setAdding(EMPTY));
  };

  const save = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!editing) return;
    const input = batchInput(editing.form, true);
    if ('problem' in input) {
      setError(t(input.problem));
      return;
    }
    void send({ batchId: editing.id, input }, () => setEditing(null));
  };

  const status = (batch: Batch) => {
    if (batch.expired) return <span className="badge badge-danger">{t('inventory.batches.expired')}</span>;
    if (batch.expiring_soon)
      return <span className="badge badge-warning">{t('inventory.batches.expiresIn', { count: batch.days_left })}</span>;
    return null;
  };

  return (
    <section className="form-section" aria-labelledby={`batches-title-${medicationId}`}>
      <h3 id={`batches-title-${medicationId}`}>{t('inventory.batches.title')}</h3>
      <p className="field-hint">{t('inventory.batches.hint', { days: query.data?.notice_days ?? 30 })}</p>
      {counted && batches.length === 0 && <p className="field-hint">{t('inventory.batches.replacesCount')}</p>}
      <FormError text={error} />
      {query.error && !query.data && (
        <p className="form-error" role="alert">
          {medsErrorText(t, query.error, 'inventory.batches.errors.load')}
        </p>
      )}
      {batches.length > 0 && (
        <ul className="ledger" data-testid="batches">
          {batches.map((batch) =>
            editing?.id === batch.id ? (
              <li key={batch.id} className="ledger-row">
                <form className="form form-tight" noValidate onSubmit={save}>
                  <BatchFields
                    idPrefix={`batch-${batch.id}`}
                    form={editing.form}
                    unit={shownUnit}
                    editing
                    onChange={(changes) => setEditing({ id: batch.id, form: { ...editing.form, ...changes } })}
                  />
                  <div className="button-row">
                    <button type="submit" className="button button-primary" disabled={busy}>
                      {busy ? t('common.saving') : t('inventory.batches.save')}
                    </button>
                    <button type="button" className="button button-secondary" onClick={() => setEditing(null)} disabled={busy}>
                      {t('common.cancel')}
                    </button>
                  </div>
                </form>
              </li>
            ) : (
              <li key={batch.id} className={batch.expired ? 'ledger-row is-expired' : 'ledger-row'} data-testid="batch">
                <span className="ledger-what">
                  <span className="ledger-kind">{batch.lot ? t('inventory.batches.lotNamed', { lot: batch.lot }) : t('inventory.batches.noLot')}</span>
                  <span className="ledger-reason">
                    {t('inventory.batches.remaining', {
                      remaining: format.amount(batch.remaining, shownUnit),
                      quantity: format.number(batch.quantity),
                    })}
                  </span>
                  <span className="ledger-when">
                    {t(batch.expired ? 'inventory.batches.expiredOn' : 'inventory.batches.expires', {
                      date: format.plainDate(batch.expires_on),
                    })}{' '}
                    {status(batch)}
                  </span>
                </span>
                <span className="button-row">
                  {confirming === batch.id ? (
                    <>
                      <button
                        type="button"
                        className="button button-danger"
                        disabled={busy}
                        onClick={() => void send({ batchId: batch.id, remove: true }, () => setConfirming(null))}
                      >
                        {t('inventory.batches.confirmDelete')}
                      </button>
                      <button type="button" className="button button-secondary" onClick={() => setConfirming(null)}>
                        {t('common.cancel')}
                      </button>
                    </>
                  ) : (
                    <>
                      <button
                        type="button"
                        className="button button-secondary"
                        onClick={() => {
                          setError(null);
                          setEditing({ id: batch.id, form: formOf(batch) });
                        }}
                        aria-label={t('inventory.batches.editNamed', { name: batch.lot ?? batch.expires_on })}
                      >
                        {t('inventory.batches.edit')}
                      </button>
                      <button
                        type="button"
                        className="button button-secondary"
                        onClick={() => setConfirming(batch.id)}
                        aria-label={t('inventory.batches.deleteNamed', { name: batch.lot ?? batch.expires_on })}
                      >
                        {t('inventory.batches.delete')}
                      </button>
                    </>
                  )}
                </span>
              </li>
            ),
          )}
        </ul>
      )}
      <form className="form form-tight" noValidate onSubmit={add} aria-label={t('inventory.batches.addTitle')}>
        <BatchFields
          idPrefix={`batch-new-${medicationId}`}
          form={adding}
          unit={shownUnit}
          editing={false}
          onChange={(changes) => setAdding({ ...adding, ...changes })}
        />
        <div>
          <button type="submit" className="button button-secondary" disabled={busy}>
            {busy ? t('common.saving') : t('inventory.batches.add')}
          </button>
        </div>
      </form>
    </section>
  );
}

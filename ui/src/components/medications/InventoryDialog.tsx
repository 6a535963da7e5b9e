import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Medication } from '../../api/medicationTypes';
import { parseAmount } from '../../medications/dosage';
import { pagerState } from '../../medications/paging';
import { onHand } from '../../medications/stock';
import { medsErrorText, problemText } from '../../medications/errors';
import { inventoryFormOf, inventoryInput, inventoryProblem, type InventoryForm } from '../../medications/inventoryForm';
import { useAdjustInventory, useInventoryQuery, useLedgerQuery, useSaveInventory } from '../../queries/medications';
import { Dialog } from '../Dialog';
import { BatchesSection } from './BatchesSection';
import { FlashMessage } from '../FlashMessage';
import { NumberField } from '../NumberField';
import { SwitchField } from '../notifications/preferenceFields';
import { useFlash } from '../useFlash';
import { FormError } from './FormError';
import { InventoryFields } from './InventoryFields';
import { Pager } from './Pager';
import { StockLine } from './StockLine';
import { useMedsFormat } from './useMedsFormat';

/** Stock changes per page of the dialog's ledger. */
const LEDGER_ROWS = 10;

interface InventoryDialogProps {
  medication: Medication;
  onClose: () => void;
}

/** SPEC §2 inventory manager: the stock's description, an adjustment, and its recent changes. */
export function InventoryDialog({ medication, onClose }: InventoryDialogProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const id = medication.id;
  const inventoryQuery = useInventoryQuery(id);
  const [ledgerPage, setLedgerPage] = useState(1);
  const ledgerQuery = useLedgerQuery(id, ledgerPage, LEDGER_ROWS);
  const saveMutation = useSaveInventory(id);
  const adjustMutation = useAdjustInventory(id);
  // The person's edits; null follows the stock as the server has it (loaded, saved, adjusted).
  const [edited, setEdited] = useState<InventoryForm | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const saving = saveMutation.isPending;
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [adjustError, setAdjustError] = useState<string | null>(null);
  const adjusting = adjustMutation.isPending;
  const [flash, showFlash] = useFlash();

  // Both are needed to open; a later ledger failure is ignored (a courtesy beside the stock).
  const inventory = ledgerQuery.data ? (inventoryQuery.data ?? null) : null;
  const ledger = ledgerQuery.data?.rows ?? [];
  const ledgerPager = ledgerQuery.data && pagerState(ledgerQuery.data.pagination, ledger.length);
  const failed = (!inventoryQuery.data && inventoryQuery.error) || (!ledgerQuery.data && ledgerQuery.error) || null;
  const loadError = failed && medsErrorText(t, failed, 'errors.loadInventory');
  const form = edited ?? (inventory && inventoryFormOf(inventory, medication.unit));

  const change = (changes: Partial<InventoryForm>) => setEdited(form && { ...form, ...changes });

  const save = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!form || !inventory) return;
    const problem = inventoryProblem(form, medication.unit);
    if (problem) {
      setSaveError(problemText(t, problem));
      return;
    }
    const wasOn = inventory.enabled;
    const sendCurrent = wasOn ? form.currentQuantity !== String(inventory.current_quantity) : true;
    setSaveError(null);
    try {
      await saveMutation.mutateAsync(inventoryInput(form, sendCurrent));
      setEdited(null);
      showFlash('success', t('inventory.saved'));
    } catch (err) {
      setSaveError(medsErrorText(t, err, 'errors.updateInventory'));
    }
  };

  const adjust = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = parseAmount(amount);
    if (value === null || value === 0) {
      setAdjustError(t('inventory.errors.adjustmentNonZero'));
      return;
    }
    setAdjustError(null);
    try {
      await adjustMutation.mutateAsync({ adjustment: value, reason: reason.trim() || undefined });
      setEdited(null);
      setAmount('');
      setReason('');
      showFlash('success', t('inventory.adjusted'));
    } catch (err) {
      setAdjustError(medsErrorText(t, err, 'errors.adjustInventory'));
    }
  };

  const unit = inventory?.total_unit ?? '';

  return (
    <Dialog
      title={t('inventory.title', { name: medication.name })}
      onClose={saving || adjusting ? undefined : onClose}
      className="dialog-wide"
    >
      <FlashMessage flash={flash} />
      {loadError && (
        <p className="form-error" role="alert">
          {loadError}
        </p>
      )}
      {!loadError && (!form || !inventory) && (
        <p className="muted" role="status">
          {t('common.loading')}
        </p>
      )}
      {form && inventory && (
        <>
          {inventory.enabled && (
            <div className="inventory-summary" data-testid="inventory-summary">
              <StockLine inventory={inventory} showForecast />
              <p className="muted">
                {t('inventory.totalOf', { total: format.amount(inventory.total_quantity, unit) })}
              </p>
            </div>
          )}

          <form className="form form-tight" noValidate onSubmit={(event) => void save(event)}>
            <FormError text={saveError} />
            <SwitchField
              label={t('inventory.track')}
              hint={t('inventory.trackHint')}
              checked={form.enabled}
              onChange={(enabled) => change({ enabled })}
              autoFocus
            />
            {form.enabled && (
              <InventoryFields
                idPrefix={`inventory-${id}`}
                form={form}
                onChange={change}
                medicationUnit={medication.unit}
                existing={inventory.enabled}
                batched={inventory.batches !== null}
              />
            )}
            <div className="button-row">
              <button type="submit" className="button button-primary" disabled={saving}>
                {saving ? t('common.saving') : t('inventory.save')}
              </button>
              <button type="button" className="button button-secondary" onClick={onClose} disabled={saving}>
                {t('common.close')}
              </button>
            </div>
          </form>

          <BatchesSection
            medicationId={id}
            unit={inventory.enabled ? unit : medication.unit}
            counted={inventory.enabled && !inventory.batches}
          />

          {inventory.enabled && !inventory.batches && (
            <section className="form-section" aria-labelledby={`adjust-title-${id}`}>
              <h3 id={`adjust-title-${id}`}>{t('inventory.adjustTitle')}</h3>
              <p className="field-hint">{t('inventory.adjustHint')}</p>
              <form className="form form-tight" noValidate onSubmit={(event) => void adjust(event)}>
                <FormError text={adjustError} />
                <div className="field-row">
                  <NumberField
                    id={`adjust-amount-${id}`}
                    label={t('inventory.adjustAmount', { unit })}
                    kind="stockChange"
                    value={amount}
                    onChange={setAmount}
                  />
                  <div className="field">
                    <label htmlFor={`adjust-reason-${id}`}>{t('inventory.adjustReason')}</label>
                    <input
                      id={`adjust-reason-${id}`}
                      maxLength={500}
                      value={reason}
                      onChange={(event) => setReason(event.target.value)}
                    />
                  </div>
                </div>
                <div>
                  <button type="submit" className="button button-secondary" disabled={adjusting}>
                    {adjusting ? t('common.saving') : t('inventory.adjust')}
                  </button>
                </div>
              </form>
            </section>
          )}

          {ledger.length > 0 && (
            <section className="form-section" aria-labelledby={`ledger-title-${id}`}>
              <h3 id={`ledger-title-${id}`}>{t('inventory.ledgerTitle')}</h3>
              <ul className="ledger" data-testid="ledger">
                {ledger.map((row) => (
                  <li key={row.id} className="ledger-row">
                    <span className="ledger-what">
                      <span className="ledger-kind">{t(`ledger.${row.kind}`)}</span>
                      {row.reason && <span className="ledger-reason">{row.reason}</span>}
                      <span className="ledger-when">{format.dateTime(row.created_at)}</span>
                    </span>
                    <span className="ledger-numbers">
                      <span className={row.change < 0 ? 'ledger-change is-negative' : 'ledger-change'}>
                        {row.change > 0 ? '+' : row.change < 0 ? '−' : ''}
                        {format.number(Math.abs(row.change))}
                      </span>
                      <span className="ledger-balance">
                        {t('inventory.balance', { amount: format.amount(onHand(row.balance), unit) })}
                      </span>
                    </span>
                  </li>
                ))}
              </ul>
              {ledgerPager && ledgerPager.pages > 1 && (
                <Pager
                  state={ledgerPager}
                  label={t('inventory.ledgerPages')}
                  loading={ledgerQuery.isFetching}
                  onPage={setLedgerPage}
                />
              )}
            </section>
          )}
        </>
      )}
    </Dialog>
  );
}

import { useTranslation } from '../../i18n/useTranslation';
import type { Medication } from '../../api/medicationTypes';
import { parseAmount } from '../../medications/dosage';
import { convertUnit, findUnit, formatConversion, stockUsage, UnitConversionError } from '../../medications/units';
import { UnitSelect } from './UnitSelect';
import { useMedsFormat } from './useMedsFormat';
import { NumberField } from '../NumberField';

interface DoseFieldsProps {
  idPrefix: string;
  quantity: string;
  unit: string;
  onQuantity: (value: string) => void;
  onUnit: (value: string) => void;
  /** For the conversion and stock hints; none before a medication is chosen. */
  medication: Medication | null;
  /** Whether the dose counts against the stock (taken, with inventory on). */
  usesStock: boolean;
}

/**
 * Quantity and unit of a dose (SPEC §5 "dosage confirmation"), with what the amount means in
 * the medication's unit (3 decimals, §9) and what it takes from the stock.
 */
export function DoseFields({ idPrefix, quantity, unit, onQuantity, onUnit, medication, usesStock }: DoseFieldsProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const amount = parseAmount(quantity);
  const hints: string[] = [];
  if (medication && amount !== null && amount > 0 && findUnit(unit)) {
    const target = findUnit(medication.unit)?.symbol;
    if (target && target !== findUnit(unit)?.symbol) {
      try {
        hints.push(t('dose.equals', { amount: formatConversion(convertUnit(amount, unit, target)), unit: target }));
      } catch {
        // Units of different kinds: nothing to show; the stock check below says more.
      }
    }
    const inventory = medication.inventory;
    if (usesStock && inventory?.enabled) {
      try {
        const used = stockUsage(amount, unit, medication.unit, inventory);
        hints.push(t('dose.usesStock', { amount: format.amount(used, inventory.total_unit) }));
      } catch (error) {
        if (error instanceof UnitConversionError) {
          hints.push(t(error.problem.key, error.problem.values), t('dose.stockUntouched'));
        }
      }
    }
  }
  return (
    <>
      <div className="field-row">
        <NumberField
          id={`${idPrefix}-quantity`}
          label={t('dose.quantity')}
          kind="dose"
          value={quantity}
          onChange={onQuantity}
          autoFocus
        />
        <div className="field">
          <label htmlFor={`${idPrefix}-unit`}>{t('dose.unit')}</label>
          <UnitSelect id={`${idPrefix}-unit`} value={unit} onChange={onUnit} allowEmpty />
        </div>
      </div>
      {hints.length > 0 && (
        <p className="field-hint" aria-live="polite" data-testid="dose-hint">
          {hints.join(' · ')}
        </p>
      )}
    </>
  );
}

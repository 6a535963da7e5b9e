import { useTranslation } from 'react-i18next';
import { CONTINUOUS_CONTAINERS, DISCRETE_CONTAINERS, INVENTORY_TYPES } from '../../api/medicationTypes';
import { formTotal, strengthRequired, type InventoryForm } from '../../medications/inventoryForm';
import { findUnit } from '../../medications/units';
import { UnitSelect } from './UnitSelect';
import { useMedsFormat } from './useMedsFormat';

interface InventoryFieldsProps {
  idPrefix: string;
  form: InventoryForm;
  onChange: (changes: Partial<InventoryForm>) => void;
  /** The medication's unit, which an item's strength is given in. */
  medicationUnit: string;
  /** Whether the stock exists already (then the current quantity is a correction). */
  existing: boolean;
}

/** The stock description of SPEC §3 "Inventory": measured (continuous) or counted (discrete). */
export function InventoryFields({ idPrefix, form, onChange, medicationUnit, existing }: InventoryFieldsProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const id = (name: string) => `${idPrefix}-${name}`;
  const containers = form.type === 'continuous' ? CONTINUOUS_CONTAINERS : DISCRETE_CONTAINERS;
  const total = formTotal(form);
  const stockUnit = form.type === 'continuous' ? form.containerUnit : form.itemUnit;
  // Doses in mg drawn from tablets: without the strength no dose could be counted.
  const needsStrength = strengthRequired(form, medicationUnit);
  const doseUnit = findUnit(medicationUnit)?.symbol ?? medicationUnit;

  const changeType = (type: InventoryForm['type']) => {
    const allowed: readonly string[] = type === 'continuous' ? CONTINUOUS_CONTAINERS : DISCRETE_CONTAINERS;
    onChange({
      type,
      containerType: allowed.includes(form.containerType) ? form.containerType : (allowed[0] ?? ''),
    });
  };

  return (
    <div className="inventory-fields">
      <fieldset className="choice-group">
        <legend>{t('inventory.type')}</legend>
        <div className="segmented">
          {INVENTORY_TYPES.map((type) => (
            <label key={type} className="segment">
              <input
                type="radio"
                name={id('type')}
                value={type}
                checked={form.type === type}
                onChange={() => changeType(type)}
              />
              <span>{t(`inventory.types.${type}`)}</span>
            </label>
          ))}
        </div>
      </fieldset>

      <div className="field-row">
        <div className="field">
          <label htmlFor={id('container-type')}>{t('inventory.containerType')}</label>
          <select
            id={id('container-type')}
            value={form.containerType}
            onChange={(event) => onChange({ containerType: event.target.value })}
          >
            {containers.map((container) => (
              <option key={container} value={container}>
                {t(`inventory.containers.${container}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={id('container-quantity')}>{t('inventory.containerQuantity')}</label>
          <input
            id={id('container-quantity')}
            type="number"
            inputMode="numeric"
            min={1}
            step={1}
            value={form.containerQuantity}
            onChange={(event) => onChange({ containerQuantity: event.target.value })}
          />
        </div>
      </div>

      {form.type === 'continuous' ? (
        <div className="field-row">
          <div className="field">
            <label htmlFor={id('container-size')}>{t('inventory.containerSize')}</label>
            <input
              id={id('container-size')}
              type="number"
              inputMode="decimal"
              min={0}
              step={0.001}
              value={form.containerSize}
              onChange={(event) => onChange({ containerSize: event.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor={id('container-unit')}>{t('inventory.containerUnit')}</label>
            <UnitSelect
              id={id('container-unit')}
              value={form.containerUnit}
              onChange={(containerUnit) => onChange({ containerUnit })}
              categories={['volume', 'weight', 'count']}
            />
          </div>
        </div>
      ) : (
        <>
          <div className="field-row">
            <div className="field">
              <label htmlFor={id('item-quantity')}>{t('inventory.itemQuantity')}</label>
              <input
                id={id('item-quantity')}
                type="number"
                inputMode="numeric"
                min={1}
                step={1}
                value={form.itemQuantity}
                onChange={(event) => onChange({ itemQuantity: event.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={id('item-unit')}>{t('inventory.itemUnit')}</label>
              <UnitSelect
                id={id('item-unit')}
                value={form.itemUnit}
                onChange={(itemUnit) => onChange({ itemUnit })}
                categories={['count']}
              />
            </div>
          </div>
          <div className="field">
            <label htmlFor={id('item-strength')}>
              {needsStrength
                ? t('inventory.strengthQuestion', { unit: doseUnit, item: format.amount(1, form.itemUnit) })
                : t('inventory.itemStrength', { unit: medicationUnit })}
            </label>
            <input
              id={id('item-strength')}
              type="number"
              inputMode="decimal"
              min={0}
              step={0.001}
              value={form.itemStrength}
              onChange={(event) => onChange({ itemStrength: event.target.value })}
              required={needsStrength}
              aria-required={needsStrength}
              aria-describedby={id('item-strength-hint')}
            />
            <span id={id('item-strength-hint')} className="field-hint">
              {needsStrength
                ? t('inventory.strengthRequiredHint', { unit: doseUnit, stock: form.itemUnit })
                : t('inventory.itemStrengthHint', { unit: medicationUnit })}
            </span>
          </div>
        </>
      )}

      <p className="inventory-total" data-testid="inventory-form-total">
        {t('inventory.total')}{' '}
        <strong>{total === null || stockUnit === '' ? '—' : format.amount(total, stockUnit)}</strong>
      </p>

      <div className="field-row">
        <div className="field">
          <label htmlFor={id('threshold')}>{t('inventory.threshold')}</label>
          <input
            id={id('threshold')}
            type="number"
            inputMode="decimal"
            min={0}
            step={0.001}
            value={form.threshold}
            onChange={(event) => onChange({ threshold: event.target.value })}
            aria-describedby={id('threshold-hint')}
          />
          <span id={id('threshold-hint')} className="field-hint">
            {t('inventory.thresholdHint')}
          </span>
        </div>
        <div className="field">
          <label htmlFor={id('current')}>{t('inventory.currentQuantity')}</label>
          <input
            id={id('current')}
            type="number"
            inputMode="decimal"
            min={0}
            step={0.001}
            value={form.currentQuantity}
            onChange={(event) => onChange({ currentQuantity: event.target.value })}
            aria-describedby={id('current-hint')}
          />
          <span id={id('current-hint')} className="field-hint">
            {existing ? t('inventory.currentHintExisting') : t('inventory.currentHintNew')}
          </span>
        </div>
      </div>
    </div>
  );
}

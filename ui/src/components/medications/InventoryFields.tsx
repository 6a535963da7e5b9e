import { useTranslation } from '../../i18n/useTranslation';
import { CONTINUOUS_CONTAINERS, DISCRETE_CONTAINERS, INVENTORY_TYPES } from '../../api/medicationTypes';
import { formTotal, strengthRequired, type InventoryForm } from '../../medications/inventoryForm';
import { findUnit } from '../../medications/units';
import { UnitSelect } from './UnitSelect';
import { useMedsFormat } from './useMedsFormat';
import { NumberField } from '../NumberField';

interface InventoryFieldsProps {
  idPrefix: string;
  form: InventoryForm;
  onChange: (changes: Partial<InventoryForm>) => void;
  /** The medication's unit, which an item's strength is given in. */
  medicationUnit: string;
  /** Whether the stock exists already (then the current quantity is a correction). */
  existing: boolean;
  /** Stock kept in batches: its count is what the batches hold, changed through them. */
  batched?: boolean;
}

/** The stock description of SPEC §3 "Inventory": measured (continuous) or counted (discrete). */
export function InventoryFields({ idPrefix, form, onChange, medicationUnit, existing, batched }: InventoryFieldsProps) {
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
        <NumberField
          id={id('container-quantity')}
          label={t('inventory.containerQuantity')}
          kind="count"
          value={form.containerQuantity}
          onChange={(containerQuantity) => onChange({ containerQuantity })}
        />
      </div>

      {form.type === 'continuous' ? (
        <div className="field-row">
          <NumberField
            id={id('container-size')}
            label={t('inventory.containerSize')}
            kind="stock"
            value={form.containerSize}
            onChange={(containerSize) => onChange({ containerSize })}
          />
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
            <NumberField
              id={id('item-quantity')}
              label={t('inventory.itemQuantity')}
              kind="count"
              value={form.itemQuantity}
              onChange={(itemQuantity) => onChange({ itemQuantity })}
            />
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
          <NumberField
            id={id('item-strength')}
            label={
              needsStrength
                ? t('inventory.strengthQuestion', { unit: doseUnit, item: format.amount(1, form.itemUnit) })
                : t('inventory.itemStrength', { unit: medicationUnit })
            }
            kind="stock"
            value={form.itemStrength}
            onChange={(itemStrength) => onChange({ itemStrength })}
            required={needsStrength}
            hint={
              needsStrength
                ? t('inventory.strengthRequiredHint', { unit: doseUnit, stock: form.itemUnit })
                : t('inventory.itemStrengthHint', { unit: medicationUnit })
            }
          />
        </>
      )}

      <p className="inventory-total" data-testid="inventory-form-total">
        {t('inventory.total')}{' '}
        <strong>{total === null || stockUnit === '' ? '—' : format.amount(total, stockUnit)}</strong>
      </p>

      <div className="field-row">
        <NumberField
          id={id('threshold')}
          label={t('inventory.threshold')}
          kind="stock"
          value={form.threshold}
          onChange={(threshold) => onChange({ threshold })}
          hint={t('inventory.thresholdHint')}
        />
        {!batched && (
          <NumberField
            id={id('current')}
            label={t('inventory.currentQuantity')}
            kind="stock"
            value={form.currentQuantity}
            onChange={(currentQuantity) => onChange({ currentQuantity })}
            hint={existing ? t('inventory.currentHintExisting') : t('inventory.currentHintNew')}
          />
        )}
      </div>
    </div>
  );
}

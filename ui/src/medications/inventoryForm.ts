// The inventory fields as a form holds them (text), their checks (SPEC §5 "Medication
// forms", with the server's messages) and what is sent.
import {
  DEFAULT_THRESHOLD,
  type Inventory,
  type InventoryInput,
  type InventoryType,
} from '../api/medicationTypes';
import { hasAtMostThreeDecimals, parseAmount } from './dosage';
import { onHand } from './stock';
import { UnitConversionError, findUnit, stockUsage, type Problem } from './units';

export interface InventoryForm {
  enabled: boolean;
  type: InventoryType;
  containerType: string;
  containerQuantity: string;
  containerSize: string;
  containerUnit: string;
  itemQuantity: string;
  itemStrength: string;
  itemUnit: string;
  threshold: string;
  /** Empty: a newly enabled stock starts full; otherwise the count on hand. */
  currentQuantity: string;
}

function text(value: number | null): string {
  return value === null ? '' : String(value);
}

/** A fresh form for a medication in `unit`: tablets come in blister packs, liquids in bottles. */
export function emptyInventoryForm(unit: string): InventoryForm {
  const category = findUnit(unit)?.category;
  const continuous = category === 'volume' || category === 'weight';
  return {
    enabled: false,
    type: continuous ? 'continuous' : 'discrete',
    containerType: continuous ? 'bottle' : 'blister_pack',
    containerQuantity: '1',
    containerSize: '',
    containerUnit: continuous ? (findUnit(unit)?.symbol ?? 'ml') : 'ml',
    itemQuantity: '',
    itemStrength: '',
    itemUnit: category === 'count' ? (findUnit(unit)?.symbol ?? 'tablets') : 'tablets',
    threshold: String(DEFAULT_THRESHOLD),
    currentQuantity: '',
  };
}

/** The form for a saved inventory; unset fields keep the defaults for `unit`. */
export function inventoryFormOf(inventory: Inventory | null, unit: string): InventoryForm {
  const form = emptyInventoryForm(unit);
  if (!inventory) return form;
  return {
    enabled: inventory.enabled,
    type: inventory.inventory_type,
    containerType: inventory.container_type ?? form.containerType,
    containerQuantity:
      inventory.container_quantity === null ? form.containerQuantity : text(inventory.container_quantity),
    containerSize: text(inventory.container_size),
    containerUnit: inventory.container_unit ?? form.containerUnit,
    itemQuantity: text(inventory.item_quantity),
    itemStrength: text(inventory.item_strength),
    itemUnit: inventory.item_unit ?? form.itemUnit,
    threshold: String(inventory.reminder_threshold),
    currentQuantity: inventory.enabled ? String(onHand(inventory.current_quantity)) : '',
  };
}

function isWholeAtLeastOne(value: string): boolean {
  const n = parseAmount(value);
  return n !== null && Number.isInteger(n) && n >= 1;
}

function negativeOrUnusable(value: string): Problem | 'negative' | null {
  if (value.trim() === '') return null;
  const n = parseAmount(value);
  if (n === null) return { key: 'validation.notANumber' };
  if (n < 0) return 'negative';
  if (!hasAtMostThreeDecimals(n)) return { key: 'validation.tooPrecise' };
  return null;
}

/** The unit the stock is counted in: the containers' unit, or the items'. */
export function stockUnitOf(form: InventoryForm): string {
  return form.type === 'continuous' ? form.containerUnit : form.itemUnit;
}

/**
 * Why a dose in the medication's own unit could not draw from this stock, or null when it
 * can. Counted items can always be made to work by giving their strength (mg in one
 * tablet); a measured stock has to be counted in a unit the dose converts to.
 */
export function drawProblem(form: InventoryForm, medicationUnit: string): Problem | null {
  const strength = form.type === 'discrete' ? parseAmount(form.itemStrength) : null;
  const stock = stockUnitOf(form);
  try {
    stockUsage(1, medicationUnit, medicationUnit, {
      inventory_type: form.type,
      total_unit: stock,
      item_strength: strength,
    });
    return null;
  } catch (error) {
    // An unknown unit is reported by the unit's own check.
    if (!(error instanceof UnitConversionError) || error.problem.key !== 'conversion.incompatible') return null;
    const values = { stock: findUnit(stock)?.symbol ?? stock, unit: findUnit(medicationUnit)?.symbol ?? medicationUnit };
    return form.type === 'discrete'
      ? { key: 'inventory.errors.strengthNeeded', values }
      : { key: 'inventory.errors.unitMismatch', values };
  }
}

/** Whether the strength must be given: counted items, and doses in another unit. */
export function strengthRequired(form: InventoryForm, medicationUnit: string): boolean {
  return form.type === 'discrete' && drawProblem({ ...form, itemStrength: '' }, medicationUnit) !== null;
}

/**
 * The first problem with the form, or null. A disabled stock is not checked. With the
 * medication's unit, a stock its doses cannot draw from is a problem too.
 */
export function inventoryProblem(form: InventoryForm, medicationUnit?: string): Problem | null {
  if (!form.enabled) return null;
  if (form.containerQuantity.trim() !== '' && !isWholeAtLeastOne(form.containerQuantity)) {
    return { key: 'inventory.errors.containerQuantity' };
  }
  if (form.type === 'discrete' && form.itemQuantity.trim() !== '' && !isWholeAtLeastOne(form.itemQuantity)) {
    return { key: 'inventory.errors.itemQuantity' };
  }
  const checks: [string, string][] =
    form.type === 'continuous'
      ? [
          [form.containerSize, 'inventory.errors.containerSize'],
          [form.threshold, 'inventory.errors.threshold'],
          [form.currentQuantity, 'inventory.errors.currentQuantity'],
        ]
      : [
          [form.itemStrength, 'inventory.errors.itemStrength'],
          [form.threshold, 'inventory.errors.threshold'],
          [form.currentQuantity, 'inventory.errors.currentQuantity'],
        ];
  for (const [value, negativeKey] of checks) {
    const problem = negativeOrUnusable(value);
    if (problem === 'negative') return { key: negativeKey };
    if (problem) return problem;
  }
  if (form.type === 'continuous') {
    if (form.containerQuantity.trim() === '' || form.containerSize.trim() === '' || form.containerUnit === '') {
      return { key: 'inventory.errors.continuousRequired' };
    }
  } else if (form.containerType === '' || form.itemQuantity.trim() === '' || form.itemUnit === '') {
    return { key: 'inventory.errors.discreteRequired' };
  }
  return medicationUnit === undefined ? null : drawProblem(form, medicationUnit);
}

function numberOrNull(value: string): number | null {
  return parseAmount(value);
}

/**
 * What the server gets. `sendCurrent` says whether the typed current quantity is a
 * correction to send (a stock being switched on starts full when it is left empty).
 */
export function inventoryInput(form: InventoryForm, sendCurrent: boolean): InventoryInput {
  const continuous = form.type === 'continuous';
  const input: InventoryInput = {
    enabled: form.enabled,
    inventory_type: form.type,
    container_type: form.containerType,
    container_quantity: numberOrNull(form.containerQuantity) ?? 1,
    container_size: continuous ? numberOrNull(form.containerSize) : null,
    container_unit: continuous ? form.containerUnit : null,
    item_quantity: continuous ? null : numberOrNull(form.itemQuantity),
    item_strength: continuous ? null : numberOrNull(form.itemStrength),
    item_unit: continuous ? null : form.itemUnit,
    reminder_threshold: numberOrNull(form.threshold) ?? DEFAULT_THRESHOLD,
  };
  const current = numberOrNull(form.currentQuantity);
  if (sendCurrent && current !== null) input.current_quantity = current;
  return input;
}

/** What the filled-in containers hold: quantity × size, or quantity × items (SPEC §9). */
export function formTotal(form: InventoryForm): number | null {
  const containers = parseAmount(form.containerQuantity) ?? 1;
  const each = parseAmount(form.type === 'continuous' ? form.containerSize : form.itemQuantity);
  if (each === null) return null;
  return Math.round(containers * each * 1000) / 1000;
}

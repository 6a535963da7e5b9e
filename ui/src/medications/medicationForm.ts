// The add/edit form of a medication as text, its checks and what is sent.
import {
  DEFAULT_ICON,
  type Frequency,
  type Medication,
  type MedicationColor,
  type MedicationInput,
} from '../api/medicationTypes';
import { positiveAmountProblem } from './dosage';
import { emptyInventoryForm, inventoryInput, inventoryProblem, type InventoryForm } from './inventoryForm';
import { unitProblem, type Problem } from './units';

export const MEDICATION_ICONS = [
  'pill-symbolic',
  'capsule-symbolic',
  'tablet-symbolic',
  'bottle-symbolic',
  'syringe-symbolic',
  'drops-symbolic',
  'inhaler-symbolic',
] as const;

export interface MedicationForm {
  name: string;
  unit: string;
  frequency: Frequency;
  color: MedicationColor;
  icon: string;
  defaultQuantity: string;
  notes: string;
  times: string[];
  weekdays: number[];
  startDate: string;
  inventory: InventoryForm;
}

export function emptyMedicationForm(): MedicationForm {
  return {
    name: '',
    unit: 'tablets',
    frequency: 'daily',
    color: 'blue',
    icon: DEFAULT_ICON,
    defaultQuantity: '1',
    notes: '',
    times: [],
    weekdays: [],
    startDate: '',
    inventory: emptyInventoryForm('tablets'),
  };
}

export function medicationFormOf(m: Medication): MedicationForm {
  return {
    name: m.name,
    unit: m.unit,
    frequency: m.frequency,
    color: m.color,
    icon: m.icon,
    defaultQuantity: String(m.default_quantity),
    notes: m.notes,
    times: [...m.schedule.times],
    weekdays: [...m.schedule.weekdays],
    startDate: m.schedule.start_date,
    inventory: emptyInventoryForm(m.unit),
  };
}

export const MAX_NAME_LENGTH = 200;
export const MAX_NOTES_LENGTH = 2000;
export const MAX_TIMES = 12;

/** The first problem with the form; the stock section only counts when it is on. */
export function medicationProblem(form: MedicationForm): Problem | null {
  if (form.name.trim() === '') return { key: 'validation.nameRequired' };
  const unit = unitProblem(form.unit);
  if (unit) return unit;
  const quantity = positiveAmountProblem(form.defaultQuantity);
  if (quantity) return quantity;
  return inventoryProblem(form.inventory, form.unit);
}

/** Times of day as the server keeps them: filled in, sorted, once each. */
export function cleanTimes(times: string[]): string[] {
  return [...new Set(times.filter((time) => /^\d{2}:\d{2}$/.test(time)))].sort();
}

/** The body of POST /api/medications (`withInventory`) or PUT /api/medications/{id}. */
export function medicationInput(form: MedicationForm, withInventory: boolean): MedicationInput {
  const input: MedicationInput = {
    name: form.name.trim(),
    unit: form.unit,
    frequency: form.frequency,
    color: form.color,
    icon: form.icon || DEFAULT_ICON,
    notes: form.notes.trim(),
    default_quantity: Number(form.defaultQuantity),
    schedule: {
      times: form.frequency === 'as_needed' ? [] : cleanTimes(form.times),
      weekdays: form.frequency === 'weekly' ? [...form.weekdays].sort((a, b) => a - b) : [],
    },
  };
  if (form.startDate !== '' && input.schedule) input.schedule.start_date = form.startDate;
  if (withInventory && form.inventory.enabled) input.inventory = inventoryInput(form.inventory, true);
  return input;
}

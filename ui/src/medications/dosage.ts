// The dosage confirmation and historical entry rules of SPEC §5.
import { localMoment } from './format';
import { unitProblem, type Problem } from './units';

/** A typed amount as a number, or null when it is not one. */
export function parseAmount(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

/** Quantities are kept in thousandths (the inputs' step is 0.001). */
export function hasAtMostThreeDecimals(value: number): boolean {
  const scaled = value * 1000;
  return Math.abs(scaled - Math.round(scaled)) <= 1e-6 * Math.max(1, Math.abs(scaled));
}

/** A problem with a positive amount, or null when it is fine. */
export function positiveAmountProblem(text: string): Problem | null {
  const value = parseAmount(text);
  if (value === null || value <= 0) return { key: 'validation.quantityPositive' };
  if (!hasAtMostThreeDecimals(value)) return { key: 'validation.tooPrecise' };
  return null;
}

/**
 * SPEC §5 "dosage confirmation", in its order: an amount, a unit from the catalogue, and a
 * positive number.
 */
export function dosageProblem(quantity: string, unit: string): Problem | null {
  if (quantity.trim() === '') return { key: 'validation.quantityRequired' };
  if (unit === '') return { key: 'validation.unitSelect' };
  return unitProblem(unit) ?? positiveAmountProblem(quantity);
}

/** The quantity a dose starts with: the medication's default, else 1 (SPEC §5, §9). */
export function defaultDoseQuantity(defaultQuantity: number | null | undefined): string {
  return defaultQuantity !== null && defaultQuantity !== undefined && defaultQuantity > 0
    ? String(defaultQuantity)
    : '1';
}

export interface HistoricalEntryFields {
  medicationId: string;
  date: string;
  time: string;
  quantity: string;
  unit: string;
}

/** SPEC §5 "Historical entry": a medication, a date and time not in the future, a dosage. */
export function historicalEntryProblem(fields: HistoricalEntryFields, now: Date): Problem | null {
  if (fields.medicationId === '') return { key: 'validation.medicationRequired' };
  return entryCorrectionProblem(fields, now);
}

/** A corrected history entry: a date and time not in the future, a dosage. */
export function entryCorrectionProblem(fields: Omit<HistoricalEntryFields, 'medicationId'>, now: Date): Problem | null {
  if (fields.date === '' || fields.time === '') return { key: 'validation.dateTimeRequired' };
  const moment = localMoment(fields.date, fields.time);
  if (!moment) return { key: 'validation.dateTimeRequired' };
  if (moment.getTime() > now.getTime()) return { key: 'validation.futureDate' };
  return dosageProblem(fields.quantity, fields.unit);
}

// Units as the server's catalogue (GET /api/units, SPEC §3) defines them, and the conversions
// the screens show before saving. Only weight and volume convert, in steps of 1000.
import { UNIT_CATEGORIES, type UnitCategory, type UnitInfo } from '../api/units';
import { unitCatalogue } from './unitCatalogue';

export { UNIT_CATEGORIES, type UnitCategory, type UnitInfo };

/**
 * A unit by symbol or alias. The micro sign (U+00B5) counts as the Greek mu it is usually
 * typed for, and letters compare case-insensitively, as on the server.
 */
export function findUnit(text: string): UnitInfo | undefined {
  const wanted = text.trim().replace(/\u00b5/g, 'μ').toLowerCase();
  if (wanted === '') return undefined;
  return unitCatalogue().find((u) => u.symbol === wanted || u.aliases.includes(wanted));
}

/** A message to show, as an i18n key (namespace `meds`) and its values. */
export interface Problem {
  key: string;
  values?: Record<string, string>;
}

/** SPEC §5: empty gives "Unit is required", unknown "Unit '{unit}' is not a valid medical unit". */
export function unitProblem(text: string): Problem | null {
  if (text.trim() === '') return { key: 'validation.unitRequired' };
  if (!findUnit(text)) return { key: 'validation.unitInvalid', values: { unit: text.trim() } };
  return null;
}

/** A failed conversion; `message` is the spec's English text, `problem` the translated one. */
export class UnitConversionError extends Error {
  readonly problem: Problem;

  constructor(problem: Problem, message: string) {
    super(message);
    this.name = 'UnitConversionError';
    this.problem = problem;
  }
}

function invalidUnit(): UnitConversionError {
  return new UnitConversionError({ key: 'conversion.invalidUnit' }, 'Invalid unit specified');
}

function incompatible(from: string, to: string): UnitConversionError {
  return new UnitConversionError(
    { key: 'conversion.incompatible', values: { from, to } },
    `Cannot convert between ${from} and ${to}`,
  );
}

/** Rounds to thousandths, the precision quantities are kept in. */
export function roundThousandths(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * Converts `value` from one unit to another of the same convertible category (SPEC §5,
 * §9). The same unit (or an alias of it) needs no conversion. Throws UnitConversionError.
 */
export function convertUnit(value: number, from: string, to: string): number {
  const source = findUnit(from);
  const target = findUnit(to);
  if (!source || !target) throw invalidUnit();
  if (source.symbol === target.symbol) return value;
  if (source.category !== target.category || !source.convertible) {
    throw incompatible(source.symbol, target.symbol);
  }
  return roundThousandths(value * 10 ** (source.exponent - target.exponent));
}

/** SPEC §9: a converted amount is displayed with 3 decimals. */
export function formatConversion(value: number): string {
  return value.toFixed(3);
}

/** What a stock counts in and how, for working out what a dose uses. */
export interface StockShape {
  inventory_type: 'continuous' | 'discrete';
  total_unit: string;
  item_strength: number | null;
}

/**
 * How much of the stock a dose uses, in the stock's unit, as the server works it out: a
 * dose in the stock's unit (or one it converts to) counts directly; for tablets with a
 * strength, a dose in the medication's unit counts in tablets (1000 mg of 500 mg tablets
 * is 2 tablets). Throws UnitConversionError when the stock cannot count the dose.
 */
export function stockUsage(quantity: number, doseUnit: string, medicationUnit: string, stock: StockShape): number {
  try {
    return convertUnit(quantity, doseUnit, stock.total_unit);
  } catch (error) {
    const strength = stock.item_strength;
    if (
      !(error instanceof UnitConversionError) ||
      error.problem.key !== 'conversion.incompatible' ||
      stock.inventory_type !== 'discrete' ||
      strength === null ||
      strength <= 0
    ) {
      throw error;
    }
    let amount: number;
    try {
      amount = convertUnit(quantity, doseUnit, medicationUnit);
    } catch {
      throw error;
    }
    return roundThousandths(amount / strength);
  }
}

/** Count units read as words and are translated with a plural; the others are symbols. */
export function isCountUnit(symbol: string): boolean {
  return findUnit(symbol)?.category === 'count';
}

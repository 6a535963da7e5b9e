import { isJsonObject, type Json } from './client';
import { answer, api } from './http';
import type { components } from './schema';

/**
 * One unit of the server's catalogue (GET /api/units, SPEC §3); `exponent` is the power of
 * ten relative to the category's base unit (mg, ml).
 */
export type UnitInfo = components['schemas']['Unit'];
export type UnitCategory = UnitInfo['category'];
/** The document's categories in the order the unit picker groups them. */
export const UNIT_CATEGORIES = ['weight', 'volume', 'count', 'concentration'] as const satisfies readonly UnitCategory[];

function stringsOrNull(value: Json | undefined): string[] | null {
  if (!Array.isArray(value)) return null;
  const strings = value.filter((item): item is string => typeof item === 'string');
  return strings.length === value.length ? strings : null;
}

function isCategory(value: Json | undefined): value is UnitCategory {
  return UNIT_CATEGORIES.some((category) => category === value);
}

/** Checks one catalogue entry kept in the browser by an earlier start; null when it is not one. */
export function parseUnit(value: Json | undefined): UnitInfo | null {
  if (!isJsonObject(value)) return null;
  const { symbol, name, category, description, convertible, exponent } = value;
  const aliases = stringsOrNull(value.aliases);
  if (
    typeof symbol !== 'string' ||
    symbol === '' ||
    typeof name !== 'string' ||
    !isCategory(category) ||
    typeof description !== 'string' ||
    typeof convertible !== 'boolean' ||
    aliases === null ||
    typeof exponent !== 'number' ||
    !Number.isInteger(exponent)
  ) {
    return null;
  }
  return { symbol, name, category, description, convertible, aliases, exponent };
}

/** A catalogue kept in the browser (see unitCatalogue.ts), or null when any entry is malformed. */
export function parseUnitList(value: Json | undefined): UnitInfo[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const units = value.map(parseUnit);
  return units.every((unit): unit is UnitInfo => unit !== null) ? units : null;
}

/** The unit catalogue; public, so the signed-out take screen can read it too. */
export async function getUnits(signal?: AbortSignal): Promise<UnitInfo[]> {
  return (await answer(api.GET('/api/units', { signal }))).data;
}

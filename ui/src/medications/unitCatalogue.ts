// The unit catalogue is the server's (GET /api/units): read once per app start, by the
// signed-in app and by the signed-out take screen (UnitCatalogueGate, through
// queries/units.ts), and kept here and in localStorage, so that every amount formatter reads
// it synchronously and an app started offline converts with the catalogue it last saw.
//
// There is no built-in copy to fall back on: only screens that show or convert units need
// it, they wait for the first answer, and so the catalogue lives in one place, the server.
import type { Json } from '../api/client';
import { parseUnitList, type UnitInfo } from '../api/units';

const STORAGE_KEY = 'pillbox_units';
const NONE: readonly UnitInfo[] = [];

let catalogue: readonly UnitInfo[] | null = null;
const listeners = new Set<() => void>();

function storedCatalogue(): readonly UnitInfo[] | null {
  try {
    const text = localStorage.getItem(STORAGE_KEY);
    return text === null ? null : parseUnitList(JSON.parse(text) as Json);
  } catch {
    return null;
  }
}

/** The units known now: the last answer of the server, or none before the first one. */
export function unitCatalogue(): readonly UnitInfo[] {
  catalogue ??= storedCatalogue();
  return catalogue ?? NONE;
}

/** Calls `listener` when the catalogue changes; returns the unsubscribe (useSyncExternalStore). */
export function subscribeUnitCatalogue(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Puts a catalogue in place (the server's answer) and tells the screens. */
export function setUnitCatalogue(units: readonly UnitInfo[]): void {
  catalogue = units;
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(units));
  } catch {
    // A full or disabled storage only costs the offline start.
  }
  for (const listener of listeners) listener();
}

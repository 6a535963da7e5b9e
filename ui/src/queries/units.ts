// The unit catalogue (GET /api/units), fetched once per app start into the store that every
// amount formatter reads synchronously (medications/unitCatalogue.ts). Public: the signed-out
// take screen needs it too. Not a cached query: the store, not the query cache, holds it, and
// it outlives a change of the person signed in.
import { getUnits, type UnitInfo } from '../api/units';
import { setUnitCatalogue } from '../medications/unitCatalogue';

let loading: Promise<readonly UnitInfo[]> | null = null;

/** Fetches the catalogue once per app start; a failure lets the next call try again. */
export function loadUnitCatalogue(): Promise<readonly UnitInfo[]> {
  loading ??= getUnits().then(
    (units) => {
      setUnitCatalogue(units);
      return units;
    },
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

import { useTranslation } from 'react-i18next';
import type { Medication } from '../../api/medicationTypes';
import { medsErrorText } from '../../medications/errors';
import { usePersonScope, type PersonScope } from '../../people/PersonScopeContext';
import { useMedicationsQuery } from '../../queries/medications';

export interface MedicationList {
  medications: Medication[] | null;
  error: string | null;
  /** Loads again; the list stays on screen meanwhile. */
  reload: () => void;
}

/**
 * The medications of the person chosen in the top bar (or of `scope`), loaded again when the
 * time zone or anything about them changes.
 */
export function useMedicationList(scope?: PersonScope): MedicationList {
  const { t } = useTranslation('meds');
  const chosen = usePersonScope().scope;
  const query = useMedicationsQuery(scope === undefined ? chosen : scope);
  const { refetch } = query;
  return {
    medications: query.data ?? null,
    error: query.error ? medsErrorText(t, query.error, 'errors.load') : null,
    reload: () => void refetch(),
  };
}

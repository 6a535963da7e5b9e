import { useTranslation } from '../../i18n/useTranslation';
import type { Medication } from '../../api/medicationTypes';
import { medsErrorText } from '../../medications/errors';
import { usePersonScope, type PersonScope } from '../../people/PersonScopeContext';
import { useEveryonesMedicationsQuery, useMedicationsQuery } from '../../queries/medications';
import { caredIdsOf } from '../../queries/firstScreen';
import { usePeopleQuery } from '../../queries/people';

export interface MedicationList {
  medications: Medication[] | null;
  error: string | null;
  /** Loads again; the list stays on screen meanwhile. */
  reload: () => void;
}

/**
 * The medications of the person chosen in the top bar (or of `scope`): one person's, or
 * everyone's (own people and the people the user cares for), loaded again when the time zone
 * or anything about them changes.
 */
export function useMedicationList(scope?: PersonScope): MedicationList {
  const { t } = useTranslation('meds');
  const chosen = usePersonScope().scope;
  const person = scope === undefined ? chosen : scope;
  const people = usePeopleQuery().data;
  const caredIds = people ? caredIdsOf(people) : [];
  const one = useMedicationsQuery(person, person !== null);
  const everyone = useEveryonesMedicationsQuery(caredIds, person === null);
  const query = person === null ? everyone : one;
  return {
    medications: query.data ?? null,
    error: query.error ? medsErrorText(t, query.error, 'errors.load') : null,
    reload: () => void query.refetch(),
  };
}

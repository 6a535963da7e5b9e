import { useTranslation } from 'react-i18next';
import type { Medication } from '../../api/medicationTypes';
import { medsErrorText } from '../../medications/errors';
import { useMedicationsQuery } from '../../queries/medications';

export interface MedicationList {
  medications: Medication[] | null;
  error: string | null;
  /** Loads again; the list stays on screen meanwhile. */
  reload: () => void;
}

/** The person's medications (loaded again when their time zone or anything about them changes). */
export function useMedicationList(): MedicationList {
  const { t } = useTranslation('meds');
  const query = useMedicationsQuery();
  const { refetch } = query;
  return {
    medications: query.data ?? null,
    error: query.error ? medsErrorText(t, query.error, 'errors.load') : null,
    reload: () => void refetch(),
  };
}

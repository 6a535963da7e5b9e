import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { listMedications } from '../../api/medications';
import type { Medication } from '../../api/medicationTypes';
import { medsErrorText } from '../../medications/errors';
import { useTimeZoneVersion } from '../../medications/timezone';

export interface MedicationList {
  medications: Medication[] | null;
  error: string | null;
  /** Loads again; `quiet` keeps the list on screen meanwhile. */
  reload: () => void;
  replace: (medication: Medication) => void;
  add: (medication: Medication) => void;
  remove: (id: number) => void;
}

/** The person's medications, loaded again when their time zone changes. */
export function useMedicationList(): MedicationList {
  const { t } = useTranslation('meds');
  const zoneVersion = useTimeZoneVersion();
  const [medications, setMedications] = useState<Medication[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    listMedications(controller.signal)
      .then((list) => {
        setMedications(list);
        setError(null);
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setError(medsErrorText(t, err, 'errors.load'));
      });
    return () => controller.abort();
  }, [zoneVersion, generation, t]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const replace = useCallback(
    (medication: Medication) =>
      setMedications((list) => list?.map((m) => (m.id === medication.id ? medication : m)) ?? list),
    [],
  );
  const add = useCallback(
    (medication: Medication) => setMedications((list) => [...(list ?? []), medication]),
    [],
  );
  const remove = useCallback(
    (id: number) => setMedications((list) => list?.filter((m) => m.id !== id) ?? list),
    [],
  );
  return { medications, error, reload, replace, add, remove };
}

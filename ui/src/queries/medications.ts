// Medications, today's schedule and stock: the queries the screens read and the changes
// they make, each change invalidating what it affects (invalidate.ts).
import {
  keepPreviousData,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
  type QueryClient,
  type UseQueryResult,
} from '@tanstack/react-query';
import {
  adjustInventory,
  createMedication,
  deleteMedication,
  getInventory,
  getLedger,
  logDose,
  saveInventory,
  updateMedication,
} from '../api/medications';
import type { DoseInput, InventoryInput, Medication, MedicationInput } from '../api/medicationTypes';
import type { Person } from '../api/peopleTypes';
import { doseRecorded, medicationChanged, stockChanged, stockRefused } from './invalidate';
import { medicationsQuery, todayScheduleQuery } from './firstScreen';
import { queryKeys } from './keys';

/** One person's medications, or (null) those of all the account's own people. */
export function useMedicationsQuery(personId: number | null, enabled = true) {
  return useQuery({ ...medicationsQuery(personId), enabled });
}

/**
 * Everyone's medications: the account's own people's in one list, and each person the user
 * cares for in their own (the server lists them one person at a time).
 */
export function useEveryonesMedicationsQuery(caredIds: readonly number[], enabled = true) {
  return useQueries({
    queries: [null, ...caredIds].map((personId) => ({ ...medicationsQuery(personId), enabled })),
    combine: (results: UseQueryResult<Medication[]>[]) => {
      const lists = results.map((r) => r.data);
      return {
        // Shown once every list is there, own people first.
        data: lists.every((list) => list !== undefined) ? lists.flat() : undefined,
        error: results.find((r) => r.error)?.error ?? null,
        refetch: () => results.forEach((r) => void r.refetch()),
      };
    },
  });
}

export function useTodayScheduleQuery(personId: number | null) {
  return useQuery(todayScheduleQuery(personId));
}

export function useInventoryQuery(medicationId: number) {
  return useQuery({
    queryKey: queryKeys.inventory(medicationId),
    queryFn: ({ signal }) => getInventory(medicationId, signal),
  });
}

/** One page of a medication's ledger; the page on screen stays while the next one loads. */
export function useLedgerQuery(medicationId: number, page: number, limit: number) {
  return useQuery({
    queryKey: [...queryKeys.ledger(medicationId), page, limit],
    queryFn: ({ signal }) => getLedger(medicationId, page, limit, signal),
    placeholderData: keepPreviousData,
  });
}

/** Changes every cached medication list (one per person scope). */
function updateLists(client: QueryClient, change: (list: Medication[], scope: number | 'all') => Medication[]): void {
  for (const [key, list] of client.getQueriesData<Medication[]>({ queryKey: queryKeys.medicationList })) {
    const scope = key[2];
    if (list && (typeof scope === 'number' || scope === 'all')) client.setQueryData(key, change(list, scope));
  }
}

/**
 * Whether a list shows a medication: its person's own list, and the account's whole list
 * when the person is one of the account's own (or the people are not loaded yet: the
 * refetch that follows decides).
 */
function listShows(client: QueryClient, scope: number | 'all', medication: Medication): boolean {
  if (scope !== 'all') return scope === medication.person_id;
  const people = client.getQueryData<Person[]>(queryKeys.people);
  return people?.some((p) => p.id === medication.person_id && p.role === 'owner') ?? true;
}

/** Puts a medication the server answered into the cached lists, so it shows before the refetch. */
export function putInLists(client: QueryClient, medication: Medication): void {
  updateLists(client, (list, scope) => {
    if (list.some((m) => m.id === medication.id)) return list.map((m) => (m.id === medication.id ? medication : m));
    return listShows(client, scope, medication) ? [...list, medication] : list;
  });
}

function updateInLists(client: QueryClient, id: number, change: (medication: Medication) => Medication): void {
  updateLists(client, (list) => list.map((m) => (m.id === id ? change(m) : m)));
}

export function useLogDose() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ medicationId, dose }: { medicationId: number; dose: DoseInput }) => logDose(medicationId, dose),
    onSuccess: () => doseRecorded(client),
  });
}

export function useCreateMedication() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: MedicationInput) => createMedication(input),
    onSuccess: (medication) => {
      putInLists(client, medication);
      medicationChanged(client);
    },
  });
}

export function useUpdateMedication() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, changes }: { id: number; changes: Partial<MedicationInput> }) => updateMedication(id, changes),
    onSuccess: (medication) => {
      putInLists(client, medication);
      medicationChanged(client, medication.id);
    },
  });
}


export function useDeleteMedication() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, deleteHistory }: { id: number; deleteHistory: boolean }) => deleteMedication(id, deleteHistory),
    onSuccess: (_nothing, { id }) => {
      updateLists(client, (list) => list.filter((m) => m.id !== id));
      client.removeQueries({ queryKey: [...queryKeys.medications, id] });
      medicationChanged(client);
    },
  });
}

export function useSaveInventory(medicationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: InventoryInput) => saveInventory(medicationId, input),
    onSuccess: (inventory) => {
      client.setQueryData(queryKeys.inventory(medicationId), inventory);
      updateInLists(client, medicationId, (m) => ({ ...m, inventory }));
      stockChanged(client, medicationId);
    },
  });
}

export function useAdjustInventory(medicationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ adjustment, reason }: { adjustment: number; reason?: string }) =>
      adjustInventory(medicationId, adjustment, reason),
    onSuccess: ({ inventory }) => {
      client.setQueryData(queryKeys.inventory(medicationId), inventory);
      updateInLists(client, medicationId, (m) => ({ ...m, inventory }));
      stockChanged(client, medicationId);
    },
    onError: () => stockRefused(client, medicationId),
  });
}


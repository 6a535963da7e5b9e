// Medications, today's schedule and stock: the queries the screens read and the changes
// they make, each change invalidating what it affects (invalidate.ts).
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  adjustInventory,
  createMedication,
  deleteMedication,
  getInventory,
  getLedger,
  getTodaySchedule,
  listMedications,
  logDose,
  saveInventory,
  updateMedication,
} from '../api/medications';
import type { DoseInput, InventoryInput, Medication, MedicationInput } from '../api/medicationTypes';
import type { Person } from '../api/peopleTypes';
import { doseRecorded, medicationChanged, stockChanged, stockRefused } from './invalidate';
import { queryKeys } from './keys';

/** One person's medications, or (null) those of all the account's own people. */
export function useMedicationsQuery(personId: number | null) {
  return useQuery({
    queryKey: queryKeys.medicationListFor(personId),
    queryFn: ({ signal }) => listMedications(personId, signal),
  });
}

export function useTodayScheduleQuery(personId: number | null) {
  return useQuery({
    queryKey: queryKeys.todayFor(personId),
    queryFn: ({ signal }) => getTodaySchedule(personId, signal),
  });
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
 * when the person is one of the account's own (a medication without a person is too).
 */
function listShows(client: QueryClient, scope: number | 'all', medication: Medication): boolean {
  if (medication.person_id === null) return true;
  if (scope !== 'all') return scope === medication.person_id;
  const people = client.getQueryData<Person[]>(queryKeys.people);
  return people?.some((p) => p.id === medication.person_id && p.role === 'owner') ?? false;
}

/** Puts a medication the server answered into the cached lists, so it shows before the refetch. */
function putInLists(client: QueryClient, medication: Medication): void {
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

// Medications, today's schedule and stock: the queries the screens read and the changes
// they make, each change invalidating what it affects (invalidate.ts).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
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
import { doseRecorded, medicationChanged, stockChanged, stockRefused } from './invalidate';
import { queryKeys } from './keys';

export function useMedicationsQuery() {
  return useQuery({ queryKey: queryKeys.medicationList, queryFn: ({ signal }) => listMedications(signal) });
}

export function useTodayScheduleQuery() {
  return useQuery({ queryKey: queryKeys.today, queryFn: ({ signal }) => getTodaySchedule(signal) });
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

/** Puts a medication the server answered into the cached list, so it shows before the refetch. */
function putInList(list: Medication[] | undefined, medication: Medication): Medication[] | undefined {
  if (!list) return list;
  return list.some((m) => m.id === medication.id)
    ? list.map((m) => (m.id === medication.id ? medication : m))
    : [...list, medication];
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
      client.setQueryData<Medication[]>(queryKeys.medicationList, (list) => putInList(list, medication));
      medicationChanged(client);
    },
  });
}

export function useUpdateMedication() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, changes }: { id: number; changes: Partial<MedicationInput> }) => updateMedication(id, changes),
    onSuccess: (medication) => {
      client.setQueryData<Medication[]>(queryKeys.medicationList, (list) => putInList(list, medication));
      medicationChanged(client, medication.id);
    },
  });
}

export function useDeleteMedication() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, deleteHistory }: { id: number; deleteHistory: boolean }) => deleteMedication(id, deleteHistory),
    onSuccess: (_nothing, { id }) => {
      client.setQueryData<Medication[]>(queryKeys.medicationList, (list) => list?.filter((m) => m.id !== id));
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
      client.setQueryData<Medication[]>(queryKeys.medicationList, (list) =>
        list?.map((m) => (m.id === medicationId ? { ...m, inventory } : m)),
      );
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
      client.setQueryData<Medication[]>(queryKeys.medicationList, (list) =>
        list?.map((m) => (m.id === medicationId ? { ...m, inventory } : m)),
      );
      stockChanged(client, medicationId);
    },
    onError: () => stockRefused(client, medicationId),
  });
}

// Medications, dose logging and stock (/api/medications/*).
import { answer, api, callerHeaders, done } from './http';
import type { components } from './schema';
import {
  DOSE_WARNING_CODES,
  type AdjustmentResult,
  type DoseInput,
  type DoseWarning,
  type EntryResult,
  type Inventory,
  type InventoryInput,
  type LedgerPage,
  type Medication,
  type MedicationInput,
  type Pagination,
  type TodaySchedule,
} from './medicationTypes';

type Schemas = components['schemas'];

/** `{ person_id }` when one person is asked for; nothing for the server's default. */
export function personParam(personId: number | null | undefined): { person_id?: number } {
  return personId == null ? {} : { person_id: personId };
}

/** One person's medications, or (null) those of all the account's own people. */
export async function listMedications(personId: number | null, signal?: AbortSignal): Promise<Medication[]> {
  const query = personParam(personId);
  return (await answer(api.GET('/api/medications', { headers: callerHeaders(), params: { query }, signal }))).data;
}

/**
 * Today's scheduled doses in the account's zone, each with how it stands: one person's, or
 * (null) everyone's the account sees, own and cared for.
 */
export async function getTodaySchedule(personId: number | null, signal?: AbortSignal): Promise<TodaySchedule> {
  const query = personParam(personId);
  return (await answer(api.GET('/api/medications/today', { headers: callerHeaders(), params: { query }, signal }))).data;
}

export async function createMedication(input: MedicationInput): Promise<Medication> {
  return (await answer(api.POST('/api/medications', { headers: callerHeaders(), body: input }))).data;
}

export async function updateMedication(id: number, changes: Partial<MedicationInput>): Promise<Medication> {
  const path = { id };
  return (await answer(api.PUT('/api/medications/{id}', { headers: callerHeaders(), params: { path }, body: changes }))).data;
}

/** Removes a medication with its stock; its history stays unless `deleteHistory`. */
export async function deleteMedication(id: number, deleteHistory: boolean): Promise<void> {
  const params = { path: { id }, query: { delete_history: deleteHistory } };
  await done(api.DELETE('/api/medications/{id}', { headers: callerHeaders(), params }));
}

/** The server's warning about a recorded dose (`warning`, `warning_code`), or null. */
export function doseWarningOf({ warning, warning_code }: Schemas['StockWarning']): DoseWarning | null {
  const code = DOSE_WARNING_CODES.find((known) => known === warning_code) ?? null;
  const message = warning ?? '';
  return code === null && message === '' ? null : { code, message };
}

/** A dose log's or a history change's answer, its warning in one field. */
export function entryResultOf(data: Schemas['MessageData_Logged']['data']): EntryResult {
  return { entry: data.entry, inventory: data.inventory, warning: doseWarningOf(data) };
}

/** Logs a dose (now unless `taken` says otherwise); answers the entry and the stock after it. */
export async function logDose(medicationId: number, dose: DoseInput): Promise<EntryResult> {
  const params = { path: { id: medicationId } };
  return entryResultOf((await answer(api.POST('/api/medications/{id}/doses', { headers: callerHeaders(), params, body: dose }))).data);
}

export async function getInventory(medicationId: number, signal?: AbortSignal): Promise<Inventory> {
  const params = { path: { id: medicationId } };
  return (await answer(api.GET('/api/medications/{id}/inventory', { headers: callerHeaders(), params, signal }))).data;
}

export async function saveInventory(medicationId: number, input: InventoryInput): Promise<Inventory> {
  const params = { path: { id: medicationId } };
  return (await answer(api.PUT('/api/medications/{id}/inventory', { headers: callerHeaders(), params, body: input }))).data;
}

/** A manual stock change (non-zero, may be negative) with an optional reason. */
export async function adjustInventory(
  medicationId: number,
  adjustment: number,
  reason?: string,
): Promise<AdjustmentResult> {
  const params = { path: { id: medicationId } };
  const body = reason ? { adjustment, reason } : { adjustment };
  return (await answer(api.POST('/api/medications/{id}/inventory/adjust', { headers: callerHeaders(), params, body }))).data;
}

/** A page's position in the app's words. */
export function paginationOf(position: Schemas['PagePosition']): Pagination {
  return {
    total: position.total,
    totalExact: position.total_exact,
    hasMore: position.has_more,
    limit: position.limit,
    offset: position.offset,
    page: position.page,
    pages: position.pages,
  };
}

/** One page of a medication's stock changes, newest first (pages count from 1). */
export async function getLedger(
  medicationId: number,
  page: number,
  limit: number,
  signal?: AbortSignal,
): Promise<LedgerPage> {
  const params = { path: { id: medicationId }, query: { limit, page: Math.max(1, page) } };
  const body = await answer(api.GET('/api/medications/{id}/inventory/ledger', { headers: callerHeaders(), params, signal }));
  return { rows: body.data, pagination: paginationOf(body.pagination) };
}


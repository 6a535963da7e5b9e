// Medications, dose logging and stock (/api/medications/*).
import { apiRequest, isJsonObject } from './client';
import {
  FormatError,
  dataOf,
  parseDoseWarning,
  parseEntry,
  parseInventory,
  parseLedgerRow,
  parseMedication,
  parseMedications,
  parsePagination,
  parseStockSummary,
  parseTodaySchedule,
} from './medicationParse';
import type {
  AdjustmentResult,
  DoseInput,
  EntryResult,
  Inventory,
  InventoryInput,
  LedgerPage,
  Medication,
  MedicationInput,
  TodaySchedule,
} from './medicationTypes';

/** `?person_id=` when one person is asked for; nothing for the server's default. */
export function personQuery(personId: number | null | undefined, prefix = '?'): string {
  return personId == null ? '' : `${prefix}person_id=${personId}`;
}

/** One person's medications, or (null) those of all the account's own people. */
export async function listMedications(personId: number | null, signal?: AbortSignal): Promise<Medication[]> {
  return parseMedications(dataOf(await apiRequest(`/api/medications${personQuery(personId)}`, { signal })));
}

/**
 * Today's scheduled doses in the account's zone, each with how it stands: one person's, or
 * (null) everyone's the account sees, own and cared for.
 */
export async function getTodaySchedule(personId: number | null, signal?: AbortSignal): Promise<TodaySchedule> {
  return parseTodaySchedule(dataOf(await apiRequest(`/api/medications/today${personQuery(personId)}`, { signal })));
}

export async function createMedication(input: MedicationInput): Promise<Medication> {
  return parseMedication(dataOf(await apiRequest('/api/medications', { method: 'POST', body: input })));
}

export async function updateMedication(id: number, changes: Partial<MedicationInput>): Promise<Medication> {
  return parseMedication(dataOf(await apiRequest(`/api/medications/${id}`, { method: 'PUT', body: changes })));
}

/** Removes a medication with its stock; its history stays unless `deleteHistory`. */
export async function deleteMedication(id: number, deleteHistory: boolean): Promise<void> {
  await apiRequest(`/api/medications/${id}?delete_history=${deleteHistory ? 'true' : 'false'}`, {
    method: 'DELETE',
  });
}

export function parseEntryResult(data: ReturnType<typeof dataOf>): EntryResult {
  if (!isJsonObject(data)) throw new FormatError('dose');
  return {
    entry: parseEntry(data.entry),
    inventory: parseStockSummary(data.inventory),
    warning: parseDoseWarning(data),
  };
}

/** Logs a dose (now unless `taken` says otherwise); answers the entry and the stock after it. */
export async function logDose(medicationId: number, dose: DoseInput): Promise<EntryResult> {
  const body = await apiRequest(`/api/medications/${medicationId}/doses`, { method: 'POST', body: dose });
  return parseEntryResult(dataOf(body));
}

function inventoryOrThrow(value: ReturnType<typeof dataOf>): Inventory {
  const inventory = parseInventory(value);
  if (!inventory) throw new FormatError('inventory');
  return inventory;
}

export async function getInventory(medicationId: number, signal?: AbortSignal): Promise<Inventory> {
  return inventoryOrThrow(dataOf(await apiRequest(`/api/medications/${medicationId}/inventory`, { signal })));
}

export async function saveInventory(medicationId: number, input: InventoryInput): Promise<Inventory> {
  const body = await apiRequest(`/api/medications/${medicationId}/inventory`, { method: 'PUT', body: input });
  return inventoryOrThrow(dataOf(body));
}

/** A manual stock change (non-zero, may be negative) with an optional reason. */
export async function adjustInventory(
  medicationId: number,
  adjustment: number,
  reason?: string,
): Promise<AdjustmentResult> {
  const body = await apiRequest(`/api/medications/${medicationId}/inventory/adjust`, {
    method: 'POST',
    body: reason ? { adjustment, reason } : { adjustment },
  });
  const data = dataOf(body);
  const summary = parseStockSummary(data);
  if (!summary || !isJsonObject(data)) throw new FormatError('adjustment');
  return { ...summary, inventory: inventoryOrThrow(data.inventory) };
}

/** One page of a medication's stock changes, newest first (pages count from 1). */
export async function getLedger(
  medicationId: number,
  page: number,
  limit: number,
  signal?: AbortSignal,
): Promise<LedgerPage> {
  const query = new URLSearchParams({ limit: String(limit), page: String(Math.max(1, page)) });
  const body = await apiRequest(`/api/medications/${medicationId}/inventory/ledger?${query}`, { signal });
  const data = dataOf(body);
  if (!Array.isArray(data) || !isJsonObject(body)) throw new FormatError('ledger');
  const rows = data.filter(isJsonObject).map(parseLedgerRow);
  return { rows, pagination: parsePagination(body.pagination, rows.length) };
}

// The dose history (/api/medications/history*) and adherence.
import { apiRequest, isJsonObject } from './client';
import { FormatError, dataOf, parseAdherence, parseEntry, parsePagination, parseStockSummary } from './medicationParse';
import { parseEntryResult, personQuery } from './medications';
import {
  HISTORY_PAGE_SIZE,
  type Adherence,
  type DoseStatus,
  type EntryResult,
  type HistoryFilters,
  type HistoryPage,
  type StockSummary,
} from './medicationTypes';

/** The query string of a history request; empty filters are left out. */
export function historyQuery(filters: HistoryFilters): string {
  const params = new URLSearchParams();
  params.set('limit', String(filters.limit ?? HISTORY_PAGE_SIZE));
  params.set('page', String(Math.max(1, filters.page)));
  if (filters.status) params.set('status', filters.status);
  if (filters.medicationId != null) params.set('medicationId', String(filters.medicationId));
  if (filters.date_from) params.set('date_from', filters.date_from);
  if (filters.date_to) params.set('date_to', filters.date_to);
  if (filters.personId != null) params.set('person_id', String(filters.personId));
  return params.toString();
}

export async function listHistory(filters: HistoryFilters, signal?: AbortSignal): Promise<HistoryPage> {
  const body = await apiRequest(`/api/medications/history?${historyQuery(filters)}`, { signal });
  const data = dataOf(body);
  if (!Array.isArray(data) || !isJsonObject(body)) throw new FormatError('history');
  const entries = data.map(parseEntry);
  return { entries, pagination: parsePagination(body.pagination, entries.length) };
}

/** A correction to an entry; what is left out stays. */
export interface EntryCorrection {
  status?: DoseStatus;
  /** RFC 3339, not in the future. */
  taken?: string;
  quantity?: number;
  dosage_unit?: string;
  /** Blank clears the note. */
  dosage?: string;
}

/**
 * Corrects an entry; stock follows (a status switch uses or gives back the dose, a taken
 * dose's new amount moves it by the difference).
 */
export async function updateHistoryEntry(entryId: number, correction: EntryCorrection): Promise<EntryResult> {
  const body = await apiRequest(`/api/medications/history/${entryId}`, { method: 'PUT', body: correction });
  return parseEntryResult(dataOf(body));
}

/** Deletes an entry; the stock it used returns. */
export async function deleteHistoryEntry(entryId: number): Promise<StockSummary | null> {
  const data = dataOf(await apiRequest(`/api/medications/history/${entryId}`, { method: 'DELETE' }));
  return isJsonObject(data) ? parseStockSummary(data.inventory) : null;
}

export async function getAdherence(personId: number | null, signal?: AbortSignal): Promise<Adherence> {
  return parseAdherence(dataOf(await apiRequest(`/api/medications/adherence${personQuery(personId)}`, { signal })));
}

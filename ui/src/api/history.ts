// The dose history (/api/medications/history*) and adherence.
import { answer, api, callerHeaders } from './http';
import { entryResultOf, paginationOf, personParam } from './medications';
import {
  HISTORY_PAGE_SIZE,
  type Adherence,
  type DoseStatus,
  type EntryResult,
  type HistoryFilters,
  type HistoryPage,
  type StockSummary,
} from './medicationTypes';

/** The query of a history request; empty filters are left out. */
export function historyQuery(filters: HistoryFilters) {
  return {
    limit: filters.limit ?? HISTORY_PAGE_SIZE,
    page: Math.max(1, filters.page),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.medicationId != null ? { medicationId: filters.medicationId } : {}),
    ...(filters.date_from ? { date_from: filters.date_from } : {}),
    ...(filters.date_to ? { date_to: filters.date_to } : {}),
    ...personParam(filters.personId),
  };
}

export async function listHistory(filters: HistoryFilters, signal?: AbortSignal): Promise<HistoryPage> {
  const params = { query: historyQuery(filters) };
  const body = await answer(api.GET('/api/medications/history', { headers: callerHeaders(), params, signal }));
  return { entries: body.data, pagination: paginationOf(body.pagination) };
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
  const params = { path: { id: entryId } };
  return entryResultOf((await answer(api.PUT('/api/medications/history/{id}', { headers: callerHeaders(), params, body: correction }))).data);
}

/** Deletes an entry; the stock it used returns. */
export async function deleteHistoryEntry(entryId: number): Promise<StockSummary | null> {
  const params = { path: { id: entryId } };
  return (await answer(api.DELETE('/api/medications/history/{id}', { headers: callerHeaders(), params }))).data.inventory;
}

export async function getAdherence(personId: number | null, signal?: AbortSignal): Promise<Adherence> {
  const params = { query: personParam(personId) };
  const { data } = await answer(api.GET('/api/medications/adherence', { headers: callerHeaders(), params, signal }));
  const tally = (t: (typeof data.medications)[number]['last7']) => ({ ...t, rate: t.rate ?? null });
  return {
    daily: data.daily,
    medications: data.medications.map((m) => ({ ...m, last7: tally(m.last7), last30: tally(m.last30) })),
  };
}

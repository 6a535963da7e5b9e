// The dose history, its adherence summary and the doctor report.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReportPeriod } from '../api/data';
import { getReport } from '../api/data';
import { deleteHistoryEntry, getAdherence, listHistory, updateHistoryEntry, type EntryCorrection } from '../api/history';
import type { HistoryFilters } from '../api/medicationTypes';
import { paramsFromFilters } from '../medications/historyFilters';
import { doseRecorded } from './invalidate';
import { queryKeys } from './keys';

/** The cache key of one history page: its filters and whose history. */
export function historyKey(filters: HistoryFilters) {
  return queryKeys.historyPage(`${paramsFromFilters(filters).toString()}|${filters.personId ?? 'all'}`);
}

/** One page of the history; the page on screen stays while the next one loads. */
export function useHistoryQuery(filters: HistoryFilters) {
  return useQuery({
    queryKey: historyKey(filters),
    queryFn: ({ signal }) => listHistory(filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useAdherenceQuery(personId: number | null) {
  return useQuery({ queryKey: queryKeys.adherenceFor(personId), queryFn: ({ signal }) => getAdherence(personId, signal) });
}

export function useReportQuery(period: ReportPeriod) {
  return useQuery({
    queryKey: queryKeys.reportFor(period),
    queryFn: ({ signal }) => getReport(period, signal),
  });
}

/** Corrects an entry: its status, or its time, amount and note. */
export function useUpdateHistoryEntry() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ entryId, correction }: { entryId: number; correction: EntryCorrection }) =>
      updateHistoryEntry(entryId, correction),
    onSuccess: () => doseRecorded(client),
  });
}

export function useDeleteHistoryEntry() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (entryId: number) => deleteHistoryEntry(entryId),
    onSuccess: () => doseRecorded(client),
  });
}

// History filters live in the address (?page=2&status=taken…), so Back and reloads keep them.
import { DOSE_STATUSES, type HistoryFilters } from '../api/medicationTypes';
import { pageFromParam } from './paging';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function filtersFromParams(params: URLSearchParams): HistoryFilters {
  const status = DOSE_STATUSES.find((s) => s === params.get('status')) ?? '';
  const medication = Number(params.get('medication'));
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  return {
    page: pageFromParam(params.get('page')),
    status,
    medicationId: Number.isInteger(medication) && medication > 0 ? medication : null,
    date_from: DATE.test(from) ? from : '',
    date_to: DATE.test(to) ? to : '',
  };
}

export function paramsFromFilters(filters: HistoryFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.status) params.set('status', filters.status);
  if (filters.medicationId != null) params.set('medication', String(filters.medicationId));
  if (filters.date_from) params.set('from', filters.date_from);
  if (filters.date_to) params.set('to', filters.date_to);
  if (filters.page > 1) params.set('page', String(filters.page));
  return params;
}

export function hasFilters(filters: HistoryFilters): boolean {
  return Boolean(filters.status || filters.medicationId != null || filters.date_from || filters.date_to);
}

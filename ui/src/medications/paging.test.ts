import { describe, expect, it } from 'vitest';
import { historyQuery } from '../api/history';
import { filtersFromParams, paramsFromFilters } from './historyFilters';
import { clampPage, pageFromParam, pagerState } from './paging';

const pagination = (page: number, total: number, limit = 20) => ({
  total,
  totalExact: true,
  hasMore: page * limit < total,
  limit,
  offset: (page - 1) * limit,
  page,
  pages: Math.max(1, Math.ceil(total / limit)),
});

describe('history paging', () => {
  it('offers only Next on the first of several pages', () => {
    expect(pagerState(pagination(1, 45), 20)).toEqual({
      page: 1,
      pages: 3,
      total: 45,
      exact: true,
      hasPrevious: false,
      hasNext: true,
      firstItem: 1,
      lastItem: 20,
      showControls: true,
    });
  });

  it('offers both in the middle and only Previous on the last page', () => {
    const middle = pagerState(pagination(2, 45), 20);
    expect([middle.hasPrevious, middle.hasNext, middle.firstItem, middle.lastItem]).toEqual([true, true, 21, 40]);
    const last = pagerState(pagination(3, 45), 5);
    expect([last.hasPrevious, last.hasNext, last.firstItem, last.lastItem]).toEqual([true, false, 41, 45]);
  });

  it('shows one disabled pair on a single page and nothing for an empty list', () => {
    const single = pagerState(pagination(1, 7), 7);
    expect([single.hasPrevious, single.hasNext, single.pages, single.showControls]).toEqual([false, false, 1, true]);
    const empty = pagerState(pagination(1, 0), 0);
    expect([empty.firstItem, empty.lastItem, empty.pages, empty.showControls]).toEqual([0, 0, 1, false]);
  });

  it('follows the server on whether more come when it stopped counting a long list', () => {
    // 1,020 counted of a longer list: page 51 of at least 51, and Next stays on.
    const state = pagerState({ ...pagination(51, 1020), totalExact: false, hasMore: true }, 20);
    expect([state.exact, state.pages, state.hasNext, state.firstItem, state.lastItem]).toEqual([
      false,
      51,
      true,
      1001,
      1020,
    ]);
  });

  it('keeps page numbers in range', () => {
    expect(clampPage(4, 3)).toBe(3);
    expect(clampPage(0, 3)).toBe(1);
    expect(clampPage(2, 0)).toBe(1);
    expect(pageFromParam('3')).toBe(3);
    expect(pageFromParam('0')).toBe(1);
    expect(pageFromParam('two')).toBe(1);
    expect(pageFromParam(null)).toBe(1);
  });

  it('asks the server for 20 a page, with the filters that are set', () => {
    // The query string the typed client sends for these parameters.
    const sent = (filters: Parameters<typeof historyQuery>[0]) =>
      new URLSearchParams(Object.entries(historyQuery(filters)).map(([key, value]) => [key, String(value)])).toString();
    expect(sent({ page: 2 })).toBe('limit=20&page=2');
    expect(
      sent({ page: 1, status: 'missed', medicationId: 4, date_from: '2026-11-01', date_to: '2026-11-30' }),
    ).toBe('limit=20&page=1&status=missed&medicationId=4&date_from=2026-11-01&date_to=2026-11-30');
  });

  it('keeps filters and page in the address', () => {
    const filters = { page: 3, status: 'taken' as const, medicationId: 9, date_from: '2026-11-01', date_to: '' };
    const params = paramsFromFilters(filters);
    expect(params.toString()).toBe('status=taken&medication=9&from=2026-11-01&page=3');
    expect(filtersFromParams(params)).toEqual(filters);
    expect(filtersFromParams(new URLSearchParams('status=bogus&medication=x&from=yesterday&page=-1'))).toEqual({
      page: 1,
      status: '',
      medicationId: null,
      date_from: '',
      date_to: '',
    });
  });
});

// History paging (the gap SPEC §9 leaves, closed: real page controls).
import type { Pagination } from '../api/medicationTypes';

export interface PagerState {
  page: number;
  /** Pages, or as far as the server counted them (see `exact`). */
  pages: number;
  total: number;
  /** False when the server counted a long list only some way past this page. */
  exact: boolean;
  hasPrevious: boolean;
  hasNext: boolean;
  /** The position of the page's first and last entry in the whole list (1-based; 0 when empty). */
  firstItem: number;
  lastItem: number;
  /** Whether controls are worth showing at all. */
  showControls: boolean;
}

export function pagerState(pagination: Pagination, entriesOnPage: number): PagerState {
  const pages = Math.max(1, pagination.pages);
  const page = Math.min(Math.max(1, pagination.page), pages);
  const firstItem = entriesOnPage === 0 ? 0 : pagination.offset + 1;
  return {
    page,
    pages,
    total: pagination.total,
    exact: pagination.totalExact,
    hasPrevious: page > 1,
    hasNext: pagination.hasMore,
    firstItem,
    lastItem: entriesOnPage === 0 ? 0 : pagination.offset + entriesOnPage,
    showControls: pagination.total > 0,
  };
}

/** A page number from the address bar: a whole number of at least 1, else 1. */
export function pageFromParam(value: string | null): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/**
 * The page to show after the list changed under the person (an entry deleted, filters
 * narrowed): the same page if it still exists, else the last one.
 */
export function clampPage(page: number, pages: number): number {
  return Math.min(Math.max(1, page), Math.max(1, pages));
}

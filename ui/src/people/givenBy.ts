import type { HistoryEntry } from '../api/medicationTypes';

/** "given by NAME" for an entry someone other than the viewer logged; null otherwise. */
export function givenByOf(entry: HistoryEntry, viewerId: string | number | null): string | null {
  const by = entry.logged_by;
  if (!by || by.user_id === null || by.name === '') return null;
  return String(by.user_id) === String(viewerId) ? null : by.name;
}

// The person chosen in the top bar, kept per device and per account (another account signing
// in on this browser starts with everyone).
import type { PersonScope } from './PersonScopeContext';

const STORAGE_KEY = 'pillbox_person';

function readAll(): Record<string, number> {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, number] => Number.isInteger(entry[1])),
    );
  } catch {
    return {};
  }
}

export function loadPersonChoice(userId: string): PersonScope {
  return readAll()[userId] ?? null;
}

export function savePersonChoice(userId: string, scope: PersonScope): void {
  const others = Object.entries(readAll()).filter(([id]) => id !== userId);
  const all = Object.fromEntries(scope === null ? others : [...others, [userId, scope]]);
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(all));
  } catch {
    // Storage full or blocked: the choice lasts for this visit only.
  }
}

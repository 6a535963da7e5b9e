// What each role may do with a person's data (the server enforces the same; the screens
// only leave out what would be refused).
import type { Person, Role } from '../api/peopleTypes';

const RANK: Record<Role, number> = { view: 0, record: 1, manage: 2, owner: 3 };

/** Whether `role` reaches `needed` (view < record < manage < owner). */
export function allows(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

/** view reads; record also logs and edits doses; manage also changes medications and stock. */
export const canLog = (role: Role) => allows(role, 'record');
export const canManage = (role: Role) => allows(role, 'manage');

/** The account holder's own person. */
export function selfPerson(people: readonly Person[]): Person | null {
  return people.find((p) => p.is_self && p.role === 'owner') ?? null;
}

/** The people a new medication may belong to: own ones not archived, and cared ones with manage. */
export function medicationOwners(people: readonly Person[]): Person[] {
  return people.filter((p) => !p.archived && canManage(p.role));
}

/** The people the switcher offers, in the server's order: own first, then cared for. */
export function switchablePeople(people: readonly Person[]): { active: Person[]; archived: Person[] } {
  return {
    active: people.filter((p) => !p.archived),
    archived: people.filter((p) => p.archived),
  };
}

import { useCallback } from 'react';
import type { Person, Role } from '../api/peopleTypes';
import { usePeopleQuery } from '../queries/people';
import { selfPerson } from './roles';

export interface PeopleView {
  /** Null while loading, or from a server without the care circle. */
  people: Person[] | null;
  self: Person | null;
  byId: (personId: number | null) => Person | null;
  /**
   * The viewer's role on a person's data. A medication without a person (a server without the
   * care circle) is the viewer's own; while the people load, nothing is offered that changes data.
   */
  roleOf: (personId: number | null) => Role;
  /** A person's name to show beside their data: none for the account holder's own. */
  tagOf: (personId: number | null) => string | null;
}

export function usePeople(): PeopleView {
  const query = usePeopleQuery();
  const people = query.data ?? null;
  const failed = query.isError;
  const byId = useCallback((personId: number | null) => people?.find((p) => p.id === personId) ?? null, [people]);
  const roleOf = useCallback(
    (personId: number | null): Role => {
      if (personId === null) return 'owner';
      if (people) return people.find((p) => p.id === personId)?.role ?? 'view';
      return failed ? 'owner' : 'view';
    },
    [people, failed],
  );
  const tagOf = useCallback(
    (personId: number | null) => {
      const person = byId(personId);
      return person && !(person.is_self && person.role === 'owner') ? person.name : null;
    },
    [byId],
  );
  return { people, self: people ? selfPerson(people) : null, byId, roleOf, tagOf };
}

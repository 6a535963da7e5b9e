import { createContext, useContext } from 'react';

/** Whose data the screens show: one person's id, or null for everyone. */
export type PersonScope = number | null;

export interface PersonScopeValue {
  scope: PersonScope;
  setScope: (scope: PersonScope) => void;
}

// Outside the signed-in shell (and in tests of a single screen) everyone is shown.
export const PersonScopeContext = createContext<PersonScopeValue>({ scope: null, setScope: () => undefined });

export function usePersonScope(): PersonScopeValue {
  return useContext(PersonScopeContext);
}

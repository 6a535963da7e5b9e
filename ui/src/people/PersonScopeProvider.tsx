import { useMemo, useState, type ReactNode } from 'react';
import { useAuth } from '../auth/AuthContext';
import { usePeopleQuery } from '../queries/people';
import { loadPersonChoice, savePersonChoice } from './personChoice';
import { PersonScopeContext, type PersonScope } from './PersonScopeContext';

/**
 * Holds the person chosen in the top bar for the screens below. A choice that no longer
 * names a person the account can see (deleted, access ended) reads as everyone.
 */
export function PersonScopeProvider({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const userId = user ? String(user.id) : '';
  const [chosen, setChosen] = useState<{ userId: string; scope: PersonScope }>(() => ({
    userId,
    scope: loadPersonChoice(userId),
  }));
  const people = usePeopleQuery().data;
  const stored = chosen.userId === userId ? chosen.scope : loadPersonChoice(userId);
  const scope = stored !== null && people && !people.some((p) => p.id === stored) ? null : stored;

  const value = useMemo(
    () => ({
      scope,
      setScope: (next: PersonScope) => {
        savePersonChoice(userId, next);
        setChosen({ userId, scope: next });
      },
    }),
    [scope, userId],
  );
  return <PersonScopeContext.Provider value={value}>{children}</PersonScopeContext.Provider>;
}

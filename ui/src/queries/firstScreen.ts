// The first screen's data, asked with the app's start beside the session check rather than
// after the screen's code has arrived and drawn: on a slow phone that is a round trip sooner,
// and the screen draws whole, its list with it. The screens' queries are built here, so that
// what the start caches is what they would have asked; a screen that mounts within a few
// seconds of the start's request takes its answer as it is instead of asking again.
import { hashKey, queryOptions, type QueryClient } from '@tanstack/react-query';
import { getTodaySchedule, listMedications } from '../api/medications';
import { listPeople } from '../api/people';
import type { Person } from '../api/peopleTypes';
import { loadPersonChoice } from '../people/personChoice';
import type { PersonScope } from '../people/PersonScopeContext';
import { queryKeys } from './keys';
import { storedUserId } from './session';

/** How long after the start's request its answer counts as new to a screen that mounts. */
export const START_ANSWER_MS = 10_000;

/** Today's doses: one person's, or (null) everyone's the account sees. */
export function todayScheduleQuery(personId: number | null) {
  return queryOptions({
    queryKey: queryKeys.todayFor(personId),
    queryFn: ({ signal }) => getTodaySchedule(personId, signal),
  });
}

/** One person's medications, or (null) those of all the account's own people. */
export function medicationsQuery(personId: number | null) {
  return queryOptions({
    queryKey: queryKeys.medicationListFor(personId),
    queryFn: ({ signal }) => listMedications(personId, signal),
  });
}

/** The people the account keeps medications for: its own and those it cares for. */
export const peopleQuery = queryOptions({
  queryKey: queryKeys.people,
  queryFn: ({ signal }) => listPeople(signal),
});

type FirstQuery = ReturnType<typeof todayScheduleQuery> | ReturnType<typeof medicationsQuery> | typeof peopleQuery;

/**
 * What the screens a start most often opens at ask first, by their routes in App.tsx's table:
 * Today, and the list the installed app starts on ("/").
 */
const FIRST_QUERIES: Record<string, (scope: PersonScope) => FirstQuery[]> = {
  '/today': (scope) => [todayScheduleQuery(scope), medicationsQuery(scope), peopleQuery],
  '/': (scope) => [medicationsQuery(scope), peopleQuery],
  '/medications': (scope) => [medicationsQuery(scope), peopleQuery],
};

/** Whose lists "everyone" shows besides the account's own people's: those it cares for, not archived. */
export function caredIdsOf(people: readonly Person[]): number[] {
  return people.filter((p) => p.role !== 'owner' && !p.archived).map((p) => p.id);
}

/**
 * At a start with a stored session: asks the first queries of the screen of `route` (the
 * route table's pattern the app opens at, as App.tsx matched it; if it has any here) for the
 * person chosen in the top bar, and for "everyone" each cared-for
 * person's list once the people are in. A screen that mounts within START_ANSWER_MS of a
 * request takes its answer without asking again, unless something changed it since (a change
 * here invalidates it); after that, or once invalidated, it asks as every query does. A
 * failure is the screen's to show: its query asks again when it mounts.
 */
export function prefetchFirstScreen(client: QueryClient, route: string): void {
  const userId = storedUserId();
  const first = FIRST_QUERIES[route];
  if (userId === null || !first) return;
  const ask = (query: FirstQuery): Promise<unknown> => {
    const asked = Date.now();
    const hash = hashKey(query.queryKey);
    // Kept by this client only: another client (another test, a reload) starts afresh.
    client.setQueryDefaults(query.queryKey, {
      refetchOnMount: ({ queryHash, state }) =>
        queryHash !== hash || Date.now() - asked >= START_ANSWER_MS || state.dataUpdatedAt < asked || state.isInvalidated,
    });
    return client.query(query as ReturnType<typeof medicationsQuery>);
  };
  const scope = loadPersonChoice(userId);
  const ignore = () => undefined;
  for (const query of first(scope)) {
    const answer = ask(query);
    if (query === peopleQuery && scope === null) {
      answer.then((people) => {
        for (const id of caredIdsOf(people as Person[])) ask(medicationsQuery(id)).catch(ignore);
      }, ignore);
    } else {
      answer.catch(ignore);
    }
  }
}

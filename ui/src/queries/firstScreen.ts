// The first screen's data, asked with the app's start beside the session check rather than
// after the screen's code has arrived and drawn: on a slow phone that is a round trip sooner,
// and the screen draws whole, its list with it. The screens' queries are built here, so that
// what the start caches is what they would have asked; one that mounts within a few seconds
// of such an answer takes it as it is instead of asking again.
import { hashKey, queryOptions, type Query, type QueryClient } from '@tanstack/react-query';
import { parseUser } from '../api/auth';
import { getTodaySchedule, listMedications } from '../api/medications';
import { listPeople } from '../api/people';
import { getStoredUserJson } from '../api/session';
import { loadPersonChoice } from '../people/personChoice';
import type { PersonScope } from '../people/PersonScopeContext';
import { queryKeys } from './keys';

/** How long an answer asked at the start counts as new to the screen that mounts. */
export const START_ANSWER_MS = 10_000;

/** When the start asked each query (by its hash). */
const askedAtStart = new Map<string, number>();

/**
 * Whether a screen mounting now asks again: not when the query's data is the start's own
 * answer (or newer) and that is recent; otherwise as every query does (when stale).
 */
function refetchOnMount(query: Pick<Query, 'queryHash' | 'state'>): boolean {
  const asked = askedAtStart.get(query.queryHash);
  return !(asked !== undefined && Date.now() - asked < START_ANSWER_MS && query.state.dataUpdatedAt >= asked);
}

/** Today's doses: one person's, or (null) everyone's the account sees. */
export function todayScheduleQuery(personId: number | null) {
  return queryOptions({
    queryKey: queryKeys.todayFor(personId),
    queryFn: ({ signal }) => getTodaySchedule(personId, signal),
    refetchOnMount,
  });
}

/** One person's medications, or (null) those of all the account's own people. */
export function medicationsQuery(personId: number | null) {
  return queryOptions({
    queryKey: queryKeys.medicationListFor(personId),
    queryFn: ({ signal }) => listMedications(personId, signal),
    refetchOnMount,
  });
}

/** The people the account keeps medications for: its own and those it cares for. */
export const peopleQuery = queryOptions({
  queryKey: queryKeys.people,
  queryFn: ({ signal }) => listPeople(signal),
  refetchOnMount,
});

type FirstQuery = ReturnType<typeof todayScheduleQuery> | ReturnType<typeof medicationsQuery> | typeof peopleQuery;

/** What the screens a start most often opens at ask first: Today, and the list the installed app starts on ("/"). */
const FIRST_QUERIES: Record<string, (scope: PersonScope) => FirstQuery[]> = {
  '/today': (scope) => [todayScheduleQuery(scope), medicationsQuery(scope), peopleQuery],
  '/': (scope) => [medicationsQuery(scope), peopleQuery],
  '/medications': (scope) => [medicationsQuery(scope), peopleQuery],
};

/**
 * At a start with a stored session: asks the first queries of the screen at `pathname` (if
 * it has any here) for the person chosen in the top bar. A failure is the screen's to show:
 * its query asks again when it mounts.
 */
export function prefetchFirstScreen(client: QueryClient, pathname: string): void {
  const user = parseUser(getStoredUserJson());
  const first = FIRST_QUERIES[pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname];
  if (!user || !first) return;
  for (const query of first(loadPersonChoice(String(user.id)))) {
    askedAtStart.set(hashKey(query.queryKey), Date.now());
    client.query(query as ReturnType<typeof medicationsQuery>).catch(() => undefined);
  }
}

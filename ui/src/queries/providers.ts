// What the sign-in page offers, in a module of its own: the app's start reads it before any
// screen loads, and must not pull the account settings' requests into the first download.
import { getProviders } from '../api/auth';
import { queryKeys } from './keys';

/**
 * The app's start asks this first when there is no session (whether a trusted proxy signed
 * the person in), so the sign-in page finds it already answered. Not retried there: offline,
 * the start goes on at once with what the app kept.
 */
export const signInProvidersQuery = {
  queryKey: queryKeys.signInProviders,
  queryFn: ({ signal }: { signal?: AbortSignal }) => getProviders(signal),
  staleTime: 60_000,
};

// What the sign-in page shows before anyone signs in, in a module of its own: the app's start
// asks for it before any screen loads, and must not pull the account settings' requests into
// the first download.
import { getProviders, getRegistration } from '../api/auth';
import { getVersion } from '../api/version';
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

/** Whether people can make an account here now (the sign-in page's "Create an account"). */
export const registrationQuery = {
  queryKey: queryKeys.registration,
  queryFn: ({ signal }: { signal?: AbortSignal }) => getRegistration(signal),
  staleTime: 60_000,
};

/** The server's version changes only with a new binary, which reloads the page anyway. */
export const versionQuery = {
  queryKey: queryKeys.version,
  queryFn: ({ signal }: { signal?: AbortSignal }) => getVersion(signal),
  staleTime: Infinity,
};

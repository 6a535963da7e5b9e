import { useVersionQuery } from '../queries/account';
import { useBackgroundRequestsAllowed } from '../queries/backgroundRequests';

export const FALLBACK_VERSION = 'dev';

/**
 * The server's version for labels; stays "dev" when it cannot be fetched. At a signed-in start
 * it is asked once the first screen is painted (the sign-in page asks for it itself).
 */
export function useServerVersion(): string {
  return useVersionQuery({ enabled: useBackgroundRequestsAllowed() }).data ?? FALLBACK_VERSION;
}

import { useVersionQuery } from '../queries/account';

export const FALLBACK_VERSION = 'dev';

/** The server's version for labels; stays "dev" when it cannot be fetched. */
export function useServerVersion(): string {
  return useVersionQuery().data ?? FALLBACK_VERSION;
}

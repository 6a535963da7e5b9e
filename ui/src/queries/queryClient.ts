// The one place that decides how server state is fetched, kept and tried again.
import { QueryClient } from '@tanstack/react-query';
import { ApiError, NETWORK_ERROR_MESSAGE } from '../api/client';

/** Tries after the first: a dropped connection or a restarting server gets a second chance. */
const MAX_RETRIES = 2;

/**
 * A screen that opens shows what the cache has at once and asks again behind it: doses are
 * logged from a reminder's take link, the dispatcher sends and marks missed doses, and time
 * moves "due" to "missed", all outside this page. Views open together share one request.
 */
export const STALE_MS = 0;

/** A failure another try may cure: the request never got through, or the server faltered (5xx). */
export function isTransient(error: unknown): boolean {
  if (error instanceof ApiError) return error.status >= 500;
  return error instanceof Error && error.message === NETWORK_ERROR_MESSAGE;
}

/** A 4xx is the server's answer and asking again changes nothing; offline, waiting does not help. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  return failureCount < MAX_RETRIES && isTransient(error) && navigator.onLine;
}

export interface QueryClientOptions {
  /** Tests turn retries off so a failure shows at once. */
  retry?: boolean;
}

export function createQueryClient({ retry = true }: QueryClientOptions = {}): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Always ask: offline, the service worker answers from its copy (api/connectivity.ts
        // tells the screens), and a query paused on navigator.onLine would never get that copy.
        networkMode: 'always',
        staleTime: STALE_MS,
        // Changes made here invalidate what they touch; a focus change is no reason to ask.
        refetchOnWindowFocus: false,
        retry: retry ? shouldRetry : false,
      },
      mutations: { networkMode: 'always', retry: false },
    },
  });
}

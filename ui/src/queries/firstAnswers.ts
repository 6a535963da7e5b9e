import { useEffect, useState } from 'react';

/** Past this, a screen shows without the answers it waits for (a server that does not answer). */
export const FIRST_ANSWERS_CAP_MS = 3_000;

type Asked = { isPending: boolean; failureCount: number };

/**
 * Whether a screen may show yet: once every query's first try has an answer or has failed, or
 * after `capMs`. A screen that waits for this appears whole, instead of drawing and then
 * moving under the person's finger when a late answer adds a line. Once true, it stays true
 * (the answers asked again after the cache is cleared on sign-out do not hide it).
 */
export function useFirstAnswers(queries: readonly Asked[], capMs = FIRST_ANSWERS_CAP_MS): boolean {
  const waiting = queries.some((query) => query.isPending && query.failureCount === 0);
  const [shown, setShown] = useState(false);
  // Latched in the render that finds the answers in, so no later render can take it back.
  if (!waiting && !shown) setShown(true);
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(() => setShown(true), capMs);
    return () => clearTimeout(timer);
  }, [waiting, capMs]);
  return shown || !waiting;
}

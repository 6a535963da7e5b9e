import { useEffect, useState } from 'react';

/** Past this, a screen shows without the answers it waits for (a server that does not answer). */
export const FIRST_ANSWERS_CAP_MS = 3_000;

type Asked = { isPending: boolean; failureCount: number };

/**
 * Whether a screen may show yet: once every query's first try has an answer or has failed, or
 * after `capMs`. A screen that waits for this appears whole, instead of drawing and then
 * moving under the person's finger when a late answer adds a line. Once true, it stays true.
 */
export function useFirstAnswers(queries: readonly Asked[], capMs = FIRST_ANSWERS_CAP_MS): boolean {
  const waiting = queries.some((query) => query.isPending && query.failureCount === 0);
  // Set when the wait ends: by the cap, or (latched) by the answers.
  const [done, setDone] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setDone(true), waiting ? capMs : 0);
    return () => clearTimeout(timer);
  }, [waiting, capMs]);
  return done || !waiting;
}

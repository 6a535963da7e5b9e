// What a signed-in start asks the server that its first screen does not show: the session's
// refresh, the settings kept on the server (appearance and time zone) and the server's version.
// They wait until the first screen has been painted. A browser opens only six connections to a
// plain-HTTP server, and on a slow phone the first screen's own requests (the session check, its
// data) otherwise queue behind them.
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

/**
 * The longest they wait: a start at a signed-in screen may still paint none (the server refuses
 * the stored token, and the sign-in page opens instead).
 */
export const HOLD_AT_MOST_MS = 5_000;

interface Hold {
  done: Promise<void>;
  end: () => void;
}

/** The app instances (by their query cache) whose background requests are held. */
const holds = new WeakMap<QueryClient, Hold>();

/** At a signed-in start at a signed-in screen (preloadFirstScreen): they wait for its paint. */
export function holdBackgroundRequests(client: QueryClient): void {
  if (holds.has(client)) return;
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((settle) => {
    resolve = settle;
  });
  const timer = setTimeout(() => {
    end();
  }, HOLD_AT_MOST_MS);
  const end = () => {
    if (holds.get(client)?.done !== done) return;
    holds.delete(client);
    clearTimeout(timer);
    resolve();
  };
  holds.set(client, { done, end });
}

/**
 * The first signed-in screen has been committed: the hold ends once the browser has shown it.
 * A frame's callback runs before that frame is drawn; the next frame's callback runs once it has
 * been drawn and handed to the screen, and a task it queues after that. (Ended a frame earlier,
 * the refresh went out while the screen was still on its way: Lighthouse then counts it among
 * the requests the screen waited for, and gives it one of the phone's six connections.)
 */
export function firstScreenCommitted(client: QueryClient): void {
  const hold = holds.get(client);
  if (!hold) return;
  requestAnimationFrame(() => {
    requestAnimationFrame(() => {
      setTimeout(hold.end, 0);
    });
  });
}

/** Resolves when background requests may go out (at once unless a start holds them). */
export function backgroundRequestsAllowed(client: QueryClient): Promise<void> {
  return holds.get(client)?.done ?? Promise.resolve();
}

/** Whether background requests may go out now; the component renders again when they may. */
export function useBackgroundRequestsAllowed(): boolean {
  const client = useQueryClient();
  const [allowed, setAllowed] = useState(() => !holds.has(client));
  useEffect(() => {
    if (allowed) return;
    let live = true;
    void backgroundRequestsAllowed(client).then(() => {
      if (live) setAllowed(true);
    });
    return () => {
      live = false;
    };
  }, [client, allowed]);
  return allowed;
}

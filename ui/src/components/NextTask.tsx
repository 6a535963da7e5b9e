import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useLayoutEffect, useState, type ReactNode } from 'react';
import { firstScreenCommitted } from '../queries/backgroundRequests';

/** The app instances (by their query cache) whose first signed-in screen is still to come a task late. */
const waiting = new WeakSet<QueryClient>();

/** At the app's start (main.tsx): its first signed-in screen renders one task after its frame. */
export function splitFirstScreen(client: QueryClient): void {
  waiting.add(client);
}

/**
 * The first signed-in frame's screen, one task after the frame, when the start asked for it
 * (splitFirstScreen): on a slow phone neither task holds the page long, and a tap in between
 * is answered. Later screens render with their frame.
 */
export function NextTask({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const [ready, setReady] = useState(() => !waiting.has(client));
  useLayoutEffect(() => {
    if (ready) {
      // The screen is in the page: what the start held back goes out once it is painted.
      firstScreenCommitted(client);
      return;
    }
    const timer = setTimeout(() => {
      waiting.delete(client);
      setReady(true);
    }, 0);
    return () => clearTimeout(timer);
  }, [client, ready]);
  return ready ? children : null;
}

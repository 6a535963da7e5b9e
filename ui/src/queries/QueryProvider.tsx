import { QueryClientProvider, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useAuth } from '../auth/AuthContext';
import { createQueryClient } from './queryClient';
import { storedUserId } from './session';

/** The query cache for the app; tests hand in their own client (no retries). */
export function QueryProvider({ client, children }: { client?: QueryClient; children: ReactNode }) {
  const [queryClient] = useState(() => client ?? createQueryClient());
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}

/**
 * Keeps the cache to the person signed in: when they sign out (or another account takes
 * over) everything loaded for them is dropped, so the next person on this browser never
 * sees it. Runs before paint; the screens that showed it are already gone by then. A start
 * with a stored session may have asked for the first screen's data before the session check
 * answers (firstScreen.ts): if the check then ends signed out, that is dropped too.
 */
export function SessionCacheGuard() {
  const client = useQueryClient();
  const { user, isLoading } = useAuth();
  const userId = user ? String(user.id) : null;
  const previous = useRef(storedUserId());

  useLayoutEffect(() => {
    if (isLoading) return;
    if (previous.current !== null && previous.current !== userId) client.clear();
    previous.current = userId;
  }, [client, userId, isLoading]);
  return null;
}

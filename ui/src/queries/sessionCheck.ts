// A signed-in start's session check (GET /api/auth/me), sent with the first screen's own
// requests while the app's code starts, not from AuthProvider's first commit: that comes a
// render later, and the first screen waits for the answer (RequireAuth).
import type { QueryClient } from '@tanstack/react-query';
import { getMe } from '../api/auth';
import { getStoredToken } from '../api/session';
import type { User } from '../api/types';

/** The check a start sent, per app instance (its query client), and the token it checked. */
const sent = new WeakMap<QueryClient, { token: string; answer: Promise<User> }>();

/** At a signed-in start at a signed-in screen (preloadFirstScreen): asks now, for the stored token. */
export function checkSessionEarly(client: QueryClient): void {
  const token = getStoredToken();
  // Signed in by an authenticating proxy: AuthProvider asks the proxy's way.
  if (token === null) return;
  const answer = getMe();
  // Read by AuthProvider, which handles a refusal; unread (another page opened), it is dropped.
  answer.catch(() => undefined);
  sent.set(client, { token, answer });
}

/** The answer to the check the start sent for `token`, once: later checks ask again. */
export function takeEarlySessionCheck(client: QueryClient, token: string): Promise<User> | null {
  const found = sent.get(client);
  sent.delete(client);
  return found?.token === token ? found.answer : null;
}

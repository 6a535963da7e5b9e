// API paths the service worker shares with the app. The worker cannot load the app's client
// (http.ts reads the page), so it builds its one call from the same template.
import type { paths } from './schema';

/** A take link's calls: GET its details, POST taken, skipped or snoozed. */
export const TAKE_PATH = '/api/notifications/take/{token}' satisfies keyof paths;

/** TAKE_PATH for one token, filled as the typed client fills it (percent-encoded). */
export function takePath(token: string): string {
  return TAKE_PATH.replace('{token}', encodeURIComponent(token));
}

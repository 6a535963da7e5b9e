// API paths the service worker shares with the app. The worker cannot load the app's client
// (http.ts reads the page), so it makes its one call with a client of its own over the same
// document, path template and path builder (openapi-fetch's).
import type { paths } from './schema';

/** A take link's calls: GET its details, POST taken, skipped or snoozed (api/take.ts, sw.ts). */
export const TAKE_PATH = '/api/notifications/take/{token}' satisfies keyof paths;

// What the start-up code asks before anything is rendered: whether this browser holds a
// session, so that the signed-in screen the app opens at is fetched early. Whether the
// session still holds is AuthProvider's question, asked of the server.
import { getStoredToken } from '../api/session';

/** A session token is stored here (it may have ended elsewhere). */
export function hasStoredSession(): boolean {
  return getStoredToken() !== null;
}

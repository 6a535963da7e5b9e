// What the start-up code asks before anything is rendered: whether this browser holds a
// session, so that the signed-in screen the app opens at is fetched early. Whether the
// session still holds is AuthProvider's question, asked of the server.
import { parseUser } from '../api/auth';
import { getStoredToken, getStoredUserJson, signedInByProxy } from '../api/session';

/** A session token is stored here (it may have ended elsewhere), or a proxy signed the person in. */
export function hasStoredSession(): boolean {
  return getStoredToken() !== null || signedInByProxy();
}

/** The id of the user stored with the session, or null (none, or not readable). */
export function storedUserId(): string | null {
  const user = parseUser(getStoredUserJson());
  return user ? String(user.id) : null;
}

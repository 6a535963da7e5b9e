import type { Json } from './client';
import type { User } from './types';

// Browser storage keys named by the spec.
export const TOKEN_KEY = 'token';
const USER_KEY = 'user';
// Set while the session came from an authenticating proxy, which signs the person in again.
const PROXY_KEY = 'pillbox_proxy_session';

export function getStoredToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function storeSession(token: string, user: User): void {
  try {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(USER_KEY, JSON.stringify(user));
  } catch {
    // Storage can be unavailable (private mode, quota); the session then lasts for this page.
  }
}

/** Replaces the token only, e.g. with the one a password or two-factor change returns. */
export function storeToken(token: string): void {
  try {
    localStorage.setItem(TOKEN_KEY, token);
  } catch {
    // See storeSession.
  }
}

export function storeUser(user: User): void {
  try {
    localStorage.setItem(USER_KEY, JSON.stringify(user));
  } catch {
    // See storeSession.
  }
}

/**
 * Keeps a session the authenticating proxy vouches for (POST /api/auth/proxy-session): the
 * user record, and no token.
 */
export function storeProxySession(user: User): void {
  try {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.setItem(USER_KEY, JSON.stringify(user));
    localStorage.setItem(PROXY_KEY, 'true');
  } catch {
    // See storeSession.
  }
}

/** Whether the person is signed in by the authenticating proxy. */
export function signedInByProxy(): boolean {
  try {
    return localStorage.getItem(PROXY_KEY) === 'true';
  } catch {
    return false;
  }
}

/** The user record kept with the token, unchecked; null when there is none. */
export function getStoredUserJson(): Json {
  try {
    const raw = localStorage.getItem(USER_KEY);
    return raw === null ? null : (JSON.parse(raw) as Json);
  } catch {
    return null;
  }
}

/** The service worker's copy of API answers, read when offline (see sw.ts). */
export const API_CACHE = 'pillbox-api';

export function clearSession(): void {
  try {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(USER_KEY);
    localStorage.removeItem(PROXY_KEY);
  } catch {
    // Nothing stored that we could remove.
  }
  // The next person on this browser must not be shown this one's data offline.
  if (typeof caches !== 'undefined') void caches.delete(API_CACHE).catch(() => false);
}

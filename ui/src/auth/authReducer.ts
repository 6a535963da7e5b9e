import type { User } from '../api';

export interface AuthState {
  user: User | null;
  token: string | null;
  isAuthenticated: boolean;
  isLoading: boolean;
  error: string | null;
  /** What the sign-in page says about how the last session ended or could not start. */
  notice: AuthNotice | null;
}

/**
 * `proxySignedOut`: signed out of a session the authenticating proxy started, which it starts
 * again. `proxyRefused`: the proxy signed the person in, but the server has no account for
 * them (the error says why).
 */
export type AuthNotice = { kind: 'proxySignedOut' } | { kind: 'proxyRefused'; error: unknown };

export type AuthAction =
  | { type: 'AUTH_START' }
  /** `token` null: signed in by an authenticating proxy, which vouches for every request. */
  | { type: 'AUTH_SUCCESS'; user: User; token: string | null }
  | { type: 'AUTH_ERROR'; error: string }
  | { type: 'LOGOUT'; notice?: AuthNotice }
  | { type: 'CLEAR_ERROR' }
  | { type: 'SET_LOADING'; isLoading: boolean }
  /** A new token (refresh, password or two-factor change) or an edited profile. */
  | { type: 'SESSION_UPDATED'; token?: string; user?: User };

/**
 * The state before start-up: a stored token is still being checked; without one, the server
 * is asked whether an authenticating proxy signed the person in.
 */
export function initialAuthState(storedToken: string | null): AuthState {
  return {
    user: null,
    token: storedToken,
    isAuthenticated: false,
    isLoading: true,
    error: null,
    notice: null,
  };
}

/** Pure state transitions (spec §4 "Authentication"); storage is written by the provider. */
export function authReducer(state: AuthState, action: AuthAction): AuthState {
  switch (action.type) {
    case 'AUTH_START':
      return { ...state, isLoading: true, error: null, notice: null };
    case 'AUTH_SUCCESS':
      return {
        user: action.user,
        token: action.token,
        isAuthenticated: true,
        isLoading: false,
        error: null,
        notice: null,
      };
    case 'AUTH_ERROR':
      return {
        user: null,
        token: null,
        isAuthenticated: false,
        isLoading: false,
        error: action.error,
        notice: null,
      };
    case 'LOGOUT':
      return {
        user: null,
        token: null,
        isAuthenticated: false,
        isLoading: false,
        error: null,
        notice: action.notice ?? null,
      };
    case 'CLEAR_ERROR':
      return { ...state, error: null };
    case 'SET_LOADING':
      return { ...state, isLoading: action.isLoading };
    case 'SESSION_UPDATED':
      if (!state.isAuthenticated) return state;
      return { ...state, token: action.token ?? state.token, user: action.user ?? state.user };
  }
}

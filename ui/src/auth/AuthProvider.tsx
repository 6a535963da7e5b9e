import { useQueryClient } from '@tanstack/react-query';
import { startTransition, useCallback, useEffect, useLayoutEffect, useMemo, useReducer, type ReactNode } from 'react';
import { ApiError, setUnauthorizedHandler } from '../api/client';
import { exchangeOidcCode, getMe, isProxyRefusal, logout, proxySession, refreshToken, register } from '../api/auth';
import {
  clearSession,
  getStoredToken,
  signedInByProxy,
  storeProxySession,
  storeSession,
  storeToken,
  storeUser,
} from '../api/session';
import type { AuthSession, User } from '../api/types';
import { parseUser } from '../api/auth';
import { linkOidcIdentity } from '../api/oidc';
import { getStoredUserJson } from '../api/session';
import { backgroundRequestsAllowed } from '../queries/backgroundRequests';
import { registrationQuery, signInProvidersQuery, versionQuery } from '../queries/providers';
import { takeEarlySessionCheck } from '../queries/sessionCheck';
import { AuthContext, type AuthContextValue } from './AuthContext';
import { authReducer, initialAuthState } from './authReducer';
import { signInWithCode, signInWithPassword } from './loginFlow';

/**
 * The API calls the session makes, by name: imported one by one (not the whole `api`
 * namespace), so the first download carries only these.
 */
const api = {
  ApiError,
  clearSession,
  exchangeOidcCode,
  getMe,
  getStoredToken,
  isProxyRefusal,
  logout,
  proxySession,
  refreshToken,
  register,
  setUnauthorizedHandler,
  signedInByProxy,
  storeProxySession,
  storeSession,
  storeToken,
  storeUser,
};

/** One exchange per code (it works once), however often the sign-in page mounts. */
const oidcExchanges = new Map<string, Promise<AuthSession>>();

function messageOf(error: unknown, fallback: string): string {
  return error instanceof Error && error.message !== '' ? error.message : fallback;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, dispatch] = useReducer(authReducer, null, () =>
    initialAuthState(api.getStoredToken()),
  );
  const queryClient = useQueryClient();

  // Start-up: a stored token is checked with the server, then exchanged for a fresh one, so
  // an app used every day never reaches the token's expiry. Only the server refusing it (401)
  // signs out: offline, or with the server down, the person keeps the session and sees what
  // the app has kept. Without a session, the server is asked whether an authenticating proxy
  // signed the person in. Asked as soon as the first screen is committed, not a frame later
  // after the browser has painted it (when Preact runs effects): it is the first request of
  // a start, and everything after it waits for its answer. A start at a signed-in screen sent
  // the check already, with the screen's requests (preloadFirstScreen): its answer is used.
  useLayoutEffect(() => {
    const token = api.getStoredToken();
    const controller = new AbortController();
    // Only a request a trusted proxy sent naming someone is signed in by it; elsewhere the
    // answer is the sign-in page's, which it then finds already loaded.
    const startFromProxy = () => {
      // What the sign-in page shows besides: asked beside the providers and the page's code,
      // so that it appears whole, not with a line that arrives later and moves the form.
      // A failure here is the page's to show (its queries try again).
      queryClient.query(registrationQuery).catch(() => undefined);
      queryClient.query(versionQuery).catch(() => undefined);
      queryClient
        .query({ ...signInProvidersQuery, retry: false })
        .then((providers) => (providers.proxy ? api.proxySession(controller.signal) : null))
        .then((user) => {
          if (controller.signal.aborted) return;
          if (user === null) {
            api.clearSession();
            dispatch({ type: 'LOGOUT' });
            return;
          }
          api.storeProxySession(user);
          dispatch({ type: 'AUTH_SUCCESS', user, token: null });
        })
        .catch((error: unknown) => {
          if (controller.signal.aborted) return;
          if (api.isProxyRefusal(error)) {
            api.clearSession();
            dispatch({ type: 'LOGOUT', notice: { kind: 'proxyRefused', error } });
            return;
          }
          // Offline, or the server down: a person the proxy signed in before sees what the app kept.
          const kept = api.signedInByProxy() ? parseUser(getStoredUserJson()) : null;
          dispatch(kept ? { type: 'AUTH_SUCCESS', user: kept, token: null } : { type: 'LOGOUT' });
        });
    };
    if (token === null) {
      startFromProxy();
      return () => controller.abort();
    }
    const refused = (error: unknown) => error instanceof api.ApiError && error.status === 401;
    const signOut = () => {
      api.clearSession();
      startFromProxy();
    };
    const keepStoredSession = () => {
      const user = parseUser(getStoredUserJson());
      // Without the user record there is nothing to show; the token stays for next time.
      dispatch(user ? { type: 'AUTH_SUCCESS', user, token } : { type: 'SET_LOADING', isLoading: false });
    };
    const ended = () => controller.signal.aborted;
    (takeEarlySessionCheck(queryClient, token) ?? api.getMe(controller.signal))
      .then(async (user) => {
        // The start's early check cannot be aborted: its answer is dropped once this effect
        // has ended, as an aborted request's would be.
        if (ended()) return;
        api.storeUser(user);
        dispatch({ type: 'AUTH_SUCCESS', user, token });
        try {
          // Not needed for the first screen: asked once that screen is painted, and only for
          // the session still stored then (not one signed out, or replaced, meanwhile).
          await backgroundRequestsAllowed(queryClient);
          if (api.getStoredToken() !== token) return;
          const fresh = await api.refreshToken(token, controller.signal);
          if (controller.signal.aborted) return;
          api.storeSession(fresh.token, fresh.user);
          dispatch({ type: 'SESSION_UPDATED', token: fresh.token, user: fresh.user });
        } catch (error) {
          // A refresh that could not be made is tried again on the next start.
          if (!controller.signal.aborted && refused(error)) signOut();
        }
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        if (refused(error)) signOut();
        else keepStoredSession();
      });
    return () => controller.abort();
  }, [queryClient]);

  // The server refused the stored token (changed elsewhere, or expired): sign out here too.
  useEffect(() => {
    api.setUnauthorizedHandler(() => {
      api.clearSession();
      dispatch({ type: 'LOGOUT' });
    });
    return () => api.setUnauthorizedHandler(null);
  }, []);

  const login = useCallback(async (email: string, password: string) => {
    dispatch({ type: 'AUTH_START' });
    try {
      const outcome = await signInWithPassword(email, password);
      if (outcome.kind === 'signedIn') {
        const { user, token } = outcome.session;
        api.storeSession(token, user);
        dispatch({ type: 'AUTH_SUCCESS', user, token });
      } else {
        dispatch({ type: 'SET_LOADING', isLoading: false });
      }
      return outcome;
    } catch (error) {
      api.clearSession();
      dispatch({ type: 'AUTH_ERROR', error: messageOf(error, 'Login failed') });
      throw error;
    }
  }, []);

  const loginWithCode = useCallback(async (email: string, password: string, code: string) => {
    dispatch({ type: 'AUTH_START' });
    try {
      const { user, token } = await signInWithCode(email, password, code);
      api.storeSession(token, user);
      dispatch({ type: 'AUTH_SUCCESS', user, token });
    } catch (error) {
      api.clearSession();
      dispatch({ type: 'AUTH_ERROR', error: messageOf(error, 'OTP verification failed') });
      throw error;
    }
  }, []);

  const loginWithPasskey = useCallback(async (after?: { email: string; password: string }) => {
    const { signInWithPasskey } = await import('./passkeySignIn');
    const { user, token } = await signInWithPasskey(after);
    api.storeSession(token, user);
    dispatch({ type: 'AUTH_SUCCESS', user, token });
  }, []);

  const loginWithOidcCode = useCallback(async (code: string) => {
    // A code works once: a second mount of the page (StrictMode) waits for the same answer.
    let exchange = oidcExchanges.get(code);
    if (exchange === undefined) {
      exchange = api.exchangeOidcCode(code);
      oidcExchanges.set(code, exchange);
    }
    const { user, token } = await exchange;
    api.storeSession(token, user);
    dispatch({ type: 'AUTH_SUCCESS', user, token });
  }, []);

  const loginWithOidcLink = useCallback(async (link: string, password: string, code?: string) => {
    const { user, token } = await linkOidcIdentity(link, password, code);
    api.storeSession(token, user);
    dispatch({ type: 'AUTH_SUCCESS', user, token });
  }, []);

  const register = useCallback(async (email: string, password: string, language: string) => {
    dispatch({ type: 'AUTH_START' });
    try {
      const result = await api.register(email, password, language);
      if (result.kind === 'signedIn') {
        const { user, token } = result.session;
        api.storeSession(token, user);
        dispatch({ type: 'AUTH_SUCCESS', user, token });
      } else {
        dispatch({ type: 'SET_LOADING', isLoading: false });
      }
      return result;
    } catch (error) {
      api.clearSession();
      dispatch({ type: 'AUTH_ERROR', error: messageOf(error, 'Registration failed') });
      throw error;
    }
  }, []);

  const logout = useCallback(() => {
    // Read before the session is forgotten: the proxy signs the person in again, and the
    // sign-in page says so.
    const byProxy = api.signedInByProxy();
    // The server is told in the background; the app leaves at once.
    void api.logout();
    // A transition, like the router's navigation: a sign-out button's `navigate('/login')` then
    // lands in the same render, so the guard never sees the old page signed out and does not
    // offer it as the page to return to (it does for a session that ended by itself).
    startTransition(() => dispatch({ type: 'LOGOUT', notice: byProxy ? { kind: 'proxySignedOut' } : undefined }));
  }, []);

  const clearError = useCallback(() => dispatch({ type: 'CLEAR_ERROR' }), []);

  const replaceToken = useCallback((token: string) => {
    // The proxy vouches for every request: a token sent beside it could only be refused.
    if (api.signedInByProxy()) return;
    api.storeToken(token);
    dispatch({ type: 'SESSION_UPDATED', token });
  }, []);

  const updateUser = useCallback((user: User) => {
    api.storeUser(user);
    dispatch({ type: 'SESSION_UPDATED', user });
  }, []);

  const value = useMemo<AuthContextValue>(
    () => ({
      ...state,
      login,
      loginWithCode,
      loginWithPasskey,
      loginWithOidcCode,
      loginWithOidcLink,
      register,
      logout,
      clearError,
      replaceToken,
      updateUser,
    }),
    [
      state,
      login,
      loginWithCode,
      loginWithPasskey,
      loginWithOidcCode,
      loginWithOidcLink,
      register,
      logout,
      clearError,
      replaceToken,
      updateUser,
    ],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

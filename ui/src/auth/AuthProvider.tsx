import { useCallback, useEffect, useMemo, useReducer, type ReactNode } from 'react';
import * as api from '../api';
import { AuthContext, type AuthContextValue } from './AuthContext';
import { authReducer, initialAuthState } from './authReducer';

function messageOf(error: unknown, fallback: string): string {
  return error instanceof Error && error.message !== '' ? error.message : fallback;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, dispatch] = useReducer(authReducer, null, () =>
    initialAuthState(api.getStoredToken()),
  );

  // Start-up: a stored token is only trusted once the server accepts it.
  useEffect(() => {
    const token = api.getStoredToken();
    if (token === null) return;
    const controller = new AbortController();
    api
      .getMe(controller.signal)
      .then((user) => {
        api.storeUser(user);
        dispatch({ type: 'AUTH_SUCCESS', user, token });
      })
      .catch(() => {
        if (controller.signal.aborted) return;
        api.clearSession();
        dispatch({ type: 'LOGOUT' });
      });
    return () => controller.abort();
  }, []);

  const login = useCallback(async (email: string, password: string) => {
    dispatch({ type: 'AUTH_START' });
    try {
      const { user, token } = await api.login(email, password);
      api.storeSession(token, user);
      dispatch({ type: 'AUTH_SUCCESS', user, token });
    } catch (error) {
      api.clearSession();
      dispatch({ type: 'AUTH_ERROR', error: messageOf(error, 'Login failed') });
      throw error;
    }
  }, []);

  const register = useCallback(async (email: string, password: string) => {
    dispatch({ type: 'AUTH_START' });
    try {
      const result = await api.register(email, password);
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
    try {
      api.logout();
    } catch (error) {
      console.error('Sign out failed', error);
    }
    dispatch({ type: 'LOGOUT' });
  }, []);

  const clearError = useCallback(() => dispatch({ type: 'CLEAR_ERROR' }), []);

  const value = useMemo<AuthContextValue>(
    () => ({ ...state, login, register, logout, clearError }),
    [state, login, register, logout, clearError],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

import { createContext, useContext } from 'react';
import type { RegisterResult } from '../api';
import type { AuthState } from './authReducer';

export interface AuthContextValue extends AuthState {
  /** Signs in; resolves when signed in, rejects with the error shown to the user. */
  login: (email: string, password: string) => Promise<void>;
  register: (email: string, password: string) => Promise<RegisterResult>;
  logout: () => void;
  clearError: () => void;
}

export const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}

import { createContext, useContext } from 'react';
import type { RegisterResult, User } from '../api';
import type { AuthState } from './authReducer';
import type { LoginOutcome } from './loginFlow';

export interface AuthContextValue extends AuthState {
  /**
   * The password step: signs in, or tells that a code step or e-mail verification comes
   * first. Rejects with a LoginFailure.
   */
  login: (email: string, password: string) => Promise<LoginOutcome>;
  /** The code step: the password again plus the six-digit (or backup) code. */
  loginWithCode: (email: string, password: string, code: string) => Promise<void>;
  /**
   * Signs in with a passkey: alone, or as the code step's second factor after the password
   * (`after`). Rejects with a PasskeyCeremonyError when the browser gave none.
   */
  loginWithPasskey: (after?: { email: string; password: string }) => Promise<void>;
  /** Back from the identity provider: its one-time code exchanged for a session (once per code). */
  loginWithOidcCode: (code: string) => Promise<void>;
  /**
   * The linking page: links the provider's identity to the account with that account's
   * password (and second-factor code), and signs in. Rejects with the server's ApiError.
   */
  loginWithOidcLink: (link: string, password: string, code?: string) => Promise<void>;
  /** `language`: the one the app is shown in, which the new account keeps. */
  register: (email: string, password: string, language: string) => Promise<RegisterResult>;
  logout: () => void;
  clearError: () => void;
  /**
   * Uses a token the server handed out for this session (password or two-factor changes
   * sign out every other session and answer with a new one).
   */
  replaceToken: (token: string) => void;
  /** Keeps an edited profile. */
  updateUser: (user: User) => void;
}

export const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}

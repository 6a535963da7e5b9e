import { login, requiresEmailVerification, twoFactorChallenge } from '../api/auth';
import { checkLoginRequirements } from '../api/twoFactor';
import type { AuthSession, TwoFactorMethod } from '../api/types';

/** The calls of the password step, by name (not the whole `api` namespace: see AuthProvider). */
const api = { checkLoginRequirements, login, requiresEmailVerification, twoFactorChallenge };

/** Where a sign-in failed, so the screen can pick the right fallback text (spec §8). */
export type LoginStage = 'requirements' | 'login' | 'code';

/** A failed sign-in step; `cause` is the error of the call (an ApiError when the server answered). */
export class LoginFailure extends Error {
  readonly stage: LoginStage;

  constructor(stage: LoginStage, cause: unknown, fallback: string) {
    super(cause instanceof Error && cause.message !== '' ? cause.message : fallback, { cause });
    this.name = 'LoginFailure';
    this.stage = stage;
  }
}

export type LoginOutcome =
  | { kind: 'signedIn'; session: AuthSession }
  | { kind: 'twoFactorRequired'; methods: TwoFactorMethod[]; preferredMethod: TwoFactorMethod | null }
  | { kind: 'verificationRequired' };

/**
 * The password step of spec §4 "Login flow": ask whether a code step follows (the server
 * only tells with the right password), then either sign in or hand over to the code step.
 * A 403 that asks for e-mail verification is an outcome, not a failure.
 */
export async function signInWithPassword(email: string, password: string): Promise<LoginOutcome> {
  let requirements;
  try {
    requirements = await api.checkLoginRequirements(email, password);
  } catch (error) {
    throw new LoginFailure('requirements', error, 'Failed to check login requirements');
  }
  if (requirements.requires2FA && requirements.availableMethods.length > 0) {
    return {
      kind: 'twoFactorRequired',
      methods: requirements.availableMethods,
      preferredMethod: requirements.preferredMethod,
    };
  }
  try {
    return { kind: 'signedIn', session: await api.login(email, password) };
  } catch (error) {
    if (api.requiresEmailVerification(error)) return { kind: 'verificationRequired' };
    // Two-factor switched on between the check and the sign-in: the answer names the methods.
    const challenge = api.twoFactorChallenge(error);
    if (challenge && challenge.availableMethods.length > 0) {
      return {
        kind: 'twoFactorRequired',
        methods: challenge.availableMethods,
        preferredMethod: challenge.preferredMethod,
      };
    }
    throw new LoginFailure('login', error, 'Login failed');
  }
}

/** The code step: the password again plus the code (a code alone never signs anyone in). */
export async function signInWithCode(email: string, password: string, code: string): Promise<AuthSession> {
  try {
    return await api.login(email, password, code);
  } catch (error) {
    throw new LoginFailure('code', error, 'OTP verification failed');
  }
}

// ---- What the login screen shows ----

export type LoginView =
  | { step: 'credentials' }
  | {
      step: 'code';
      methods: TwoFactorMethod[];
      preferredMethod: TwoFactorMethod | null;
      method: TwoFactorMethod;
    };

export type LoginViewAction =
  | { type: 'TWO_FACTOR_REQUIRED'; methods: TwoFactorMethod[]; preferredMethod: TwoFactorMethod | null }
  | { type: 'METHOD_CHOSEN'; method: TwoFactorMethod }
  | { type: 'BACK_TO_LOGIN' };

export const initialLoginView: LoginView = { step: 'credentials' };

/** The methods of the code step that take a code (a passkey has a button of its own). */
export function codeMethods(methods: TwoFactorMethod[]): TwoFactorMethod[] {
  return methods.filter((method) => method !== 'passkey');
}

/** The method the code step starts with: the preferred one when offered, else the first. */
export function initialMethod(methods: TwoFactorMethod[], preferred: TwoFactorMethod | null): TwoFactorMethod {
  const codes = codeMethods(methods);
  if (preferred !== null && codes.includes(preferred)) return preferred;
  return codes[0] ?? 'totp';
}

export function loginViewReducer(view: LoginView, action: LoginViewAction): LoginView {
  switch (action.type) {
    case 'TWO_FACTOR_REQUIRED':
      return {
        step: 'code',
        methods: action.methods,
        preferredMethod: action.preferredMethod,
        method: initialMethod(action.methods, action.preferredMethod),
      };
    case 'METHOD_CHOSEN':
      if (view.step !== 'code' || !codeMethods(view.methods).includes(action.method)) return view;
      return { ...view, method: action.method };
    case 'BACK_TO_LOGIN':
      return initialLoginView;
  }
}

/** Whether entering the code step or switching to `method` sends a code (everything but the app). */
export function sendsCode(method: TwoFactorMethod): boolean {
  return method === 'email';
}

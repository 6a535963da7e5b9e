import { ApiError, isJsonObject, type Json } from './client';
import { answer, api, callerHeaders, done } from './http';
import { clearSession, getStoredToken } from './session';
import { keptInvitation } from '../people/pendingInvitation';
import type { PasskeyAssertion } from './passkeys';
import { isTwoFactorMethod, type AuthSession, type LoginRequirements, type RegisterResult, type Registration, type User, type VerificationResult } from './types';

const ANONYMOUS = callerHeaders({ anonymous: true });

function optionalString(value: Json | undefined): string | null | undefined {
  if (typeof value === 'string' || value === null) return value;
  return undefined;
}

/**
 * Checks a user record kept in the browser (`user` in localStorage, maybe from an older
 * version of the app); null when it is not one. Answers of the server are typed instead.
 */
export function parseUser(value: Json | undefined): User | null {
  if (!isJsonObject(value)) return null;
  const { id, email } = value;
  if (typeof email !== 'string' || (typeof id !== 'number' && typeof id !== 'string')) {
    return null;
  }
  const user: User = { id, email };
  const firstName = optionalString(value.firstName);
  const lastName = optionalString(value.lastName);
  if (firstName !== undefined) user.firstName = firstName;
  if (lastName !== undefined) user.lastName = lastName;
  if (typeof value.emailVerified === 'boolean') user.emailVerified = value.emailVerified;
  if (typeof value.created_at === 'string') user.created_at = value.created_at;
  return user;
}

export async function getMe(signal?: AbortSignal): Promise<User> {
  return (await answer(api.GET('/api/auth/me', { headers: callerHeaders(), signal }))).data;
}

export async function updateProfile(changes: { firstName: string; lastName: string }): Promise<User> {
  return (await answer(api.PUT('/api/auth/me', { headers: callerHeaders(), body: changes }))).data;
}

/** Deletes the account and everything in it (DELETE /api/auth/me); needs the account password. */
export async function deleteAccount(password: string): Promise<void> {
  await done(api.DELETE('/api/auth/me', { headers: callerHeaders(), body: { password } }));
}

/**
 * Signs in. `code` is the second factor (six digits, or a backup code), or `passkey` a
 * passkey's answer instead; the server only accepts either together with the right password.
 */
export async function login(email: string, password: string, code?: string, passkey?: PasskeyAssertion): Promise<AuthSession> {
  // An invitation opened on this device proves its address: the server then asks for no
  // verification link when it is the account's own.
  const invitation = keptInvitation();
  const body = {
    email,
    password,
    ...(code === undefined ? {} : { code }),
    ...(passkey === undefined
      ? {}
      : { passkey: { ceremony: passkey.ceremony, credential: passkey.credential as Record<string, never> } }),
    ...(invitation === null ? {} : { invitation }),
  };
  return (await answer(api.POST('/api/auth/login', { headers: ANONYMOUS, body }))).data;
}

/** Makes an account that keeps `language` (the one the app is shown in) for the app, its reminders and e-mails. */
export async function register(email: string, password: string, language: string): Promise<RegisterResult> {
  const invitation = keptInvitation();
  const body = invitation ? { email, password, language, invitation } : { email, password, language };
  const { data } = await answer(api.POST('/api/auth/register', { headers: ANONYMOUS, body }));
  return 'token' in data ? { kind: 'signedIn', session: data } : { kind: 'verificationRequired', user: data.user };
}

/**
 * Behind an authenticating proxy: the person the proxy signed in, or null when no trusted
 * proxy named anyone (the person signs in here). There is no token: every request through the
 * proxy is the person's, and a proxy with HTTP basic authentication would refuse the app's own
 * Authorization header.
 */
export async function proxySession(signal?: AbortSignal): Promise<User | null> {
  return (await answer(api.POST('/api/auth/proxy-session', { headers: ANONYMOUS, signal }))).data;
}

/** True for the refusal of a person the proxy signed in but who has no account here. */
export function isProxyRefusal(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.code === 'proxy_registration_not_allowed' || error.code === 'proxy_email_missing')
  );
}

/** A fresh token for a valid one, so a session in daily use never expires. */
export async function refreshToken(token: string, signal?: AbortSignal): Promise<AuthSession> {
  return (await answer(api.POST('/api/auth/refresh', { headers: ANONYMOUS, body: { token }, signal }))).data;
}

/** Changes the password; every other session is signed out, this one gets a new token. */
export async function changePassword(currentPassword: string, newPassword: string): Promise<AuthSession> {
  const body = { currentPassword, newPassword };
  return (await answer(api.POST('/api/auth/change-password', { headers: callerHeaders(), body }))).data;
}

/** Confirms an address with the token from the verification e-mail. */
export async function verifyEmail(token: string): Promise<VerificationResult> {
  try {
    return await answer(
      api.GET('/api/auth/verify-email/{token}', { headers: ANONYMOUS, params: { path: { token } } }),
    );
  } catch (error) {
    // An unknown or expired link is an answer, not a failure of the call.
    if (error instanceof ApiError && isJsonObject(error.body) && error.body.emailVerified === false) {
      return { success: false, emailVerified: false, message: error.message };
    }
    throw error;
  }
}

/** Whether people can make an account on this server now (GET /api/auth/registration). */
export async function getRegistration(signal?: AbortSignal): Promise<Registration> {
  return (await answer(api.GET('/api/auth/registration', { headers: ANONYMOUS, signal }))).data;
}

/** What the sign-in page offers: the password form, and an OpenID Connect provider. */
export async function getProviders(signal?: AbortSignal): Promise<SignInProviders> {
  return (await answer(api.GET('/api/auth/providers', { headers: ANONYMOUS, signal }))).data;
}

export type SignInProviders = { password: boolean; oidc?: { label: string } | null; proxy: boolean; passkeys?: boolean };

/** Exchanges the one-time code the provider's return put in the address for a session. */
export async function exchangeOidcCode(code: string): Promise<AuthSession> {
  return (await answer(api.POST('/api/auth/oidc/exchange', { headers: ANONYMOUS, body: { code } }))).data;
}

/**
 * Asks for a link to choose a new password. The answer is the same for every address; it
 * resolves to whether this server can send e-mail at all.
 */
export async function forgotPassword(email: string): Promise<{ emailAvailable: boolean }> {
  return (await answer(api.POST('/api/auth/forgot-password', { headers: ANONYMOUS, body: { email } }))).data;
}

/** Sets a new password with the e-mailed link's token; every session of the account ends. */
export async function resetPassword(token: string, password: string): Promise<void> {
  await done(api.POST('/api/auth/reset-password', { headers: ANONYMOUS, body: { token, password } }));
}

/** Sends a new verification link; resolves to whether the server said it did. */
export async function resendVerification(email: string): Promise<boolean> {
  return (await answer(api.POST('/api/auth/resend-verification', { headers: ANONYMOUS, body: { email } }))).success;
}

/**
 * Signs out: the server ends this session's token (POST /api/auth/logout), and the token and
 * the user record leave the browser at once, whether or not the server could be reached.
 */
export function logout(): Promise<void> {
  const token = getStoredToken();
  clearSession();
  if (token === null) return Promise.resolve();
  // Already ended, or offline: the browser has forgotten it all the same.
  return api.POST('/api/auth/logout', { headers: callerHeaders({ token }) }).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * Ends every session of the account on the server, this one included (POST
 * /api/auth/logout-all); then this browser forgets its session too.
 */
export async function logoutAll(): Promise<void> {
  await done(api.POST('/api/auth/logout-all', { headers: callerHeaders() }));
  clearSession();
}

/** True for the login answer that means "verify your e-mail address first" (403). */
export function requiresEmailVerification(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 403 &&
    (error.code === 'email_not_verified' ||
      (isJsonObject(error.body) &&
        (error.body.requiresEmailVerification === true ||
          (isJsonObject(error.body.data) && error.body.data.requiresEmailVerification === true))))
  );
}

/**
 * The methods offered by a login answer that asks for a second factor (401 with
 * `requires2FA: true`), or null for any other error.
 */
export function twoFactorChallenge(error: unknown): LoginRequirements | null {
  if (!(error instanceof ApiError) || error.status !== 401 || !isJsonObject(error.body)) return null;
  const body = error.body;
  if (error.code !== 'two_factor_required' && body.requires2FA !== true) return null;
  return {
    requires2FA: true,
    availableMethods: Array.isArray(body.availableMethods) ? body.availableMethods.filter(isTwoFactorMethod) : [],
    preferredMethod: isTwoFactorMethod(body.preferredMethod) ? body.preferredMethod : null,
  };
}

import { ApiError, apiRequest, isJsonObject, type Json } from './client';
import { nonEmptyString, parseMethod, parseMethods, payloadOf } from './parse';
import { clearSession, getStoredToken } from './session';
import { keptInvitation } from '../people/pendingInvitation';
import type { AuthSession, LoginRequirements, RegisterResult, Registration, User, VerificationResult } from './types';

function optionalString(value: Json | undefined): string | null | undefined {
  if (typeof value === 'string' || value === null) return value;
  return undefined;
}

/** Checks the shape of a user record; returns null when it is not one. */
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

/** A user and a token at the top level of the body or inside `data`. */
function parseSession(body: Json): AuthSession | null {
  for (const candidate of [payloadOf(body), isJsonObject(body) ? body : null]) {
    if (!candidate) continue;
    const user = parseUser(candidate.user);
    if (user && typeof candidate.token === 'string' && candidate.token !== '') {
      return { user, token: candidate.token };
    }
  }
  return null;
}

/** The user of a profile answer: in `data` or in `user`. */
function profileOf(body: Json): User | null {
  return isJsonObject(body) ? (parseUser(body.data) ?? parseUser(body.user)) : null;
}

export async function getMe(signal?: AbortSignal): Promise<User> {
  const user = profileOf(await apiRequest('/api/auth/me', { signal }));
  if (!user) throw new Error('Invalid profile response format');
  return user;
}

export async function updateProfile(changes: { firstName: string; lastName: string }): Promise<User> {
  const body = await apiRequest('/api/auth/me', { method: 'PUT', body: changes });
  const user = profileOf(body);
  if (!user) throw new Error('Invalid profile response format');
  return user;
}

/** Deletes the account and everything in it (DELETE /api/auth/me); needs the account password. */
export async function deleteAccount(password: string): Promise<void> {
  const body = await apiRequest('/api/auth/me', { method: 'DELETE', body: { password } });
  if (isJsonObject(body) && body.success === false) {
    throw new Error(nonEmptyString(body.message) ?? 'Failed to delete account');
  }
}

/**
 * Signs in. `code` is the second factor (six digits, or a backup code); the server only
 * accepts it together with the right password.
 */
export async function login(email: string, password: string, code?: string): Promise<AuthSession> {
  // An invitation opened on this device proves its address: the server then asks for no
  // verification link when it is the account's own.
  const invitation = keptInvitation();
  const body = await apiRequest('/api/auth/login', {
    method: 'POST',
    anonymous: true,
    body: {
      email,
      password,
      ...(code === undefined ? {} : { code }),
      ...(invitation === null ? {} : { invitation }),
    },
  });
  const session = parseSession(body);
  if (!session) throw new Error('Invalid login response format');
  return session;
}

/** Makes an account that keeps `language` (the one the app is shown in) for the app, its reminders and e-mails. */
export async function register(email: string, password: string, language: string): Promise<RegisterResult> {
  const invitation = keptInvitation();
  const body = await apiRequest('/api/auth/register', {
    method: 'POST',
    anonymous: true,
    body: invitation ? { email, password, language, invitation } : { email, password, language },
  });
  const session = parseSession(body);
  if (session) return { kind: 'signedIn', session };
  const payload = payloadOf(body);
  const flags = [payload, isJsonObject(body) ? body : null];
  const user = parseUser(payload?.user);
  if (user && flags.some((f) => f?.requiresEmailVerification === true)) {
    return { kind: 'verificationRequired', user };
  }
  throw new Error('Invalid register response format');
}

/** A fresh token for a valid one, so a session in daily use never expires. */
export async function refreshToken(token: string, signal?: AbortSignal): Promise<AuthSession> {
  const body = await apiRequest('/api/auth/refresh', {
    method: 'POST',
    body: { token },
    signal,
    anonymous: true,
  });
  const session = parseSession(body);
  if (!session) throw new Error('Invalid refresh token response format');
  return session;
}

/** Changes the password; every other session is signed out, this one gets a new token. */
export async function changePassword(currentPassword: string, newPassword: string): Promise<AuthSession> {
  const body = await apiRequest('/api/auth/change-password', {
    method: 'POST',
    body: { currentPassword, newPassword },
  });
  const session = parseSession(body);
  if (!session) throw new Error('Invalid change password response format');
  return session;
}

/** Confirms an address with the token from the verification e-mail. */
export async function verifyEmail(token: string): Promise<VerificationResult> {
  let body: Json;
  try {
    body = await apiRequest(`/api/auth/verify-email/${encodeURIComponent(token)}`, { anonymous: true });
  } catch (error) {
    // An unknown or expired link is an answer, not a failure of the call.
    if (error instanceof ApiError && isJsonObject(error.body) && error.body.emailVerified === false) {
      return { success: false, emailVerified: false, message: error.message };
    }
    throw error;
  }
  if (!isJsonObject(body)) throw new Error('Verification failed');
  return {
    success: body.success === true,
    emailVerified: body.emailVerified === true,
    message: typeof body.message === 'string' ? body.message : '',
  };
}

/** Whether people can make an account on this server now (GET /api/auth/registration). */
export async function getRegistration(signal?: AbortSignal): Promise<Registration> {
  const body = await apiRequest('/api/auth/registration', { anonymous: true, signal });
  const data = payloadOf(body);
  if (!data || typeof data.open !== 'boolean' || typeof data.invitations !== 'boolean') {
    throw new Error('Invalid registration status format');
  }
  return { open: data.open, invitations: data.invitations };
}

/**
 * Asks for a link to choose a new password. The answer is the same for every address; it
 * resolves to whether this server can send e-mail at all.
 */
export async function forgotPassword(email: string): Promise<{ emailAvailable: boolean }> {
  const body = await apiRequest('/api/auth/forgot-password', { method: 'POST', anonymous: true, body: { email } });
  return { emailAvailable: payloadOf(body)?.emailAvailable !== false };
}

/** Sets a new password with the e-mailed link's token; every session of the account ends. */
export async function resetPassword(token: string, password: string): Promise<void> {
  await apiRequest('/api/auth/reset-password', { method: 'POST', anonymous: true, body: { token, password } });
}

/** Sends a new verification link; resolves to whether the server said it did. */
export async function resendVerification(email: string): Promise<boolean> {
  const body = await apiRequest('/api/auth/resend-verification', {
    method: 'POST',
    body: { email },
    anonymous: true,
  });
  return isJsonObject(body) && body.success === true;
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
  return apiRequest('/api/auth/logout', { method: 'POST', token }).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * Ends every session of the account on the server, this one included (POST
 * /api/auth/logout-all); then this browser forgets its session too.
 */
export async function logoutAll(): Promise<void> {
  await apiRequest('/api/auth/logout-all', { method: 'POST' });
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
    availableMethods: parseMethods(body.availableMethods),
    preferredMethod: parseMethod(body.preferredMethod),
  };
}

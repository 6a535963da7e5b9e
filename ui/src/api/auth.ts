import { ApiError, apiRequest, isJsonObject, type Json, type JsonObject } from './client';
import { clearSession } from './session';
import type { AuthSession, RegisterResult, User } from './types';

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
  if (typeof value.created_at === 'string') user.created_at = value.created_at;
  return user;
}

/** The envelope's `data` object, or the body itself for servers that answer flat. */
function payloadOf(body: Json): JsonObject | null {
  if (!isJsonObject(body)) return null;
  return isJsonObject(body.data) ? body.data : body;
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

export async function getMe(signal?: AbortSignal): Promise<User> {
  const body = await apiRequest('/api/auth/me', { signal });
  const user =
    isJsonObject(body) ? (parseUser(body.data) ?? parseUser(body.user)) : null;
  if (!user) throw new Error('Invalid profile response format');
  return user;
}

export async function login(email: string, password: string): Promise<AuthSession> {
  const body = await apiRequest('/api/auth/login', {
    method: 'POST',
    body: { email, password },
  });
  const session = parseSession(body);
  if (!session) throw new Error('Invalid login response format');
  return session;
}

export async function register(email: string, password: string): Promise<RegisterResult> {
  const body = await apiRequest('/api/auth/register', {
    method: 'POST',
    body: { email, password },
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

/** Signing out is client-side: the token and the user record leave the browser. */
export function logout(): void {
  clearSession();
}

/** True for the login answer that means "verify your e-mail address first" (403). */
export function requiresEmailVerification(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 403 &&
    isJsonObject(error.body) &&
    (error.body.requiresEmailVerification === true ||
      (isJsonObject(error.body.data) && error.body.data.requiresEmailVerification === true))
  );
}

// Passkeys (/api/auth/passkeys): the account's list, adding one (options, then the
// authenticator's answer with a name), deleting one, and signing in with one. The browser's
// side of a ceremony (navigator.credentials) is auth/webauthn.ts's.
import { answer, api, callerHeaders, done } from './http';
import type { components } from './schema';
import type { AuthSession } from './types';

export type Passkey = components['schemas']['PasskeyView'];

/** A ceremony the server started: its id, and the options for the browser (JSON). */
export interface PasskeyCeremony {
  ceremony: string;
  publicKey: Record<string, unknown>;
}

/** The authenticator's answer to a sign-in ceremony, sent back with the ceremony's id. */
export interface PasskeyAssertion {
  ceremony: string;
  credential: Record<string, unknown>;
}

const ANONYMOUS = callerHeaders({ anonymous: true });

/** The document types the credential as a bare object; its fields are WebAuthn's. */
const asObject = (value: Record<string, unknown>) => value as Record<string, never>;

export async function listPasskeys(signal?: AbortSignal): Promise<Passkey[]> {
  return (await answer(api.GET('/api/auth/passkeys', { headers: callerHeaders(), signal }))).data;
}

/** Options for a new passkey; the account password is asked again (empty for an account without one). */
export async function passkeyRegistrationOptions(password: string): Promise<PasskeyCeremony> {
  return (await answer(api.POST('/api/auth/passkeys/register/options', { headers: callerHeaders(), body: { password } }))).data;
}

export async function registerPasskey(ceremony: string, name: string, credential: Record<string, unknown>): Promise<Passkey> {
  const body = { ceremony, name, credential: asObject(credential) };
  return (await answer(api.POST('/api/auth/passkeys/register', { headers: callerHeaders(), body }))).data;
}

export async function deletePasskey(id: number): Promise<void> {
  await done(api.DELETE('/api/auth/passkeys/{id}', { headers: callerHeaders(), params: { path: { id } } }));
}

/** Options for a sign-in with any passkey of this server (no account named). */
export async function passkeySignInOptions(): Promise<PasskeyCeremony> {
  return (await answer(api.POST('/api/auth/passkeys/login/options', { headers: ANONYMOUS }))).data;
}

/** A session for a passkey's answer: the same as a password sign-in's. */
export async function loginWithPasskey(assertion: PasskeyAssertion): Promise<AuthSession> {
  const body = { ceremony: assertion.ceremony, credential: asObject(assertion.credential) };
  return (await answer(api.POST('/api/auth/passkeys/login', { headers: ANONYMOUS, body }))).data;
}

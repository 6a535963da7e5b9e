// Signing in through an OpenID Connect provider, past the sign-in itself (api/auth.ts): linking
// a provider's identity to an existing account with that account's password, and the
// identities linked to the account (Settings → Security).
import { answer, api, callerHeaders, done } from './http';
import type { components } from './schema';
import type { AuthSession } from './types';

export type OidcLinkOffer = components['schemas']['LinkOffer'];
export type LinkedIdentity = components['schemas']['LinkedIdentity'];

const ANONYMOUS = callerHeaders({ anonymous: true });

/**
 * Opens the linking page: the one-time link code from the provider's return (60 s, single use)
 * becomes what the page shows and the secret that links, kept in memory only.
 */
export async function openOidcLink(code: string): Promise<OidcLinkOffer> {
  return (await answer(api.POST('/api/auth/oidc/link/open', { headers: ANONYMOUS, body: { code } }))).data;
}

/** Links the identity with the account's password (and second-factor code), and signs in. */
export async function linkOidcIdentity(link: string, password: string, code?: string): Promise<AuthSession> {
  return (
    await answer(api.POST('/api/auth/oidc/link', { headers: ANONYMOUS, body: { link, password, code: code ?? null } }))
  ).data;
}

export async function listOidcIdentities(signal?: AbortSignal): Promise<LinkedIdentity[]> {
  return (await answer(api.GET('/api/auth/oidc/identities', { headers: callerHeaders(), signal }))).data;
}

export async function unlinkOidcIdentity(id: number): Promise<void> {
  await done(
    api.DELETE('/api/auth/oidc/identities/{id}', { headers: callerHeaders(), params: { path: { id } } }),
  );
}

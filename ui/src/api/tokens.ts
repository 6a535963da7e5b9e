// API tokens (/api/tokens): for scripts and Home Assistant, each with a scope and optionally
// limited to some of the account's people. A token's secret is answered once, when it is made.
import { answer, api, callerHeaders, done } from './http';
import type { components } from './schema';

export type ApiToken = components['schemas']['TokenView'];
export type NewApiToken = components['schemas']['TokenInput'];
export type CreatedApiToken = components['schemas']['CreatedToken'];
export type TokenScope = components['schemas']['Scope'];

export async function listTokens(signal?: AbortSignal): Promise<ApiToken[]> {
  return (await answer(api.GET('/api/tokens', { headers: callerHeaders(), signal }))).data;
}

export async function createToken(token: NewApiToken): Promise<CreatedApiToken> {
  return (await answer(api.POST('/api/tokens', { headers: callerHeaders(), body: token }))).data;
}

export async function revokeToken(id: number): Promise<void> {
  await done(api.DELETE('/api/tokens/{id}', { headers: callerHeaders(), params: { path: { id } } }));
}

// Every JSON call goes through `api`, an openapi-fetch client typed by the server's OpenAPI
// document (schema.d.ts): paths, parameters, bodies and answers are the document's, so a
// contract change fails the type check instead of showing a default. The transport below is
// client.ts's: bearer token, offline state, ApiError for a refusal, 401 handling.
import createClient from 'openapi-fetch';
import { sendJson } from './client';
import type { paths } from './schema';
import { getStoredToken } from './session';

/**
 * openapi-fetch builds a Request, which needs an absolute address; the transport takes the
 * path and query back off and sends them to the configured base (apiBaseUrl).
 */
const PLACEHOLDER_ORIGIN = 'http://pillbox.api';

async function transport(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const body = request.body === null ? undefined : await request.text();
  return sendJson(`${url.pathname}${url.search}`, {
    method: request.method,
    body,
    signal: request.signal,
    token: bearerOf(request),
  });
}

function bearerOf(request: Request): string | null {
  const header = request.headers.get('Authorization');
  return header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : null;
}

export const api = createClient<paths>({ baseUrl: PLACEHOLDER_ORIGIN, fetch: transport });

/**
 * Who a call is made as: the stored session (the default), none (`anonymous`: sign-in,
 * registration, e-mail links; a 401 is then about the request, not the session), or a
 * given token (signing out sends the one it just forgot).
 */
export type Caller = { anonymous: true } | { token: string } | undefined;

/** The headers that name the caller, for a call's `headers` option. */
export function callerHeaders(caller?: Caller): { Authorization?: string } {
  if (caller && 'anonymous' in caller) return {};
  const token = caller && 'token' in caller ? caller.token : getStoredToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * The answer of a call the transport let through (every refusal is thrown as ApiError
 * there). An OK answer without the body the document promises is a broken contract.
 */
export async function answer<T>(call: Promise<{ data?: T }>): Promise<T> {
  const { data } = await call;
  if (data === undefined) throw new Error("The server's answer has no body");
  return data;
}

/** For calls whose answer the app does not read. */
export async function done(call: Promise<unknown>): Promise<void> {
  await call;
}

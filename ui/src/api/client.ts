import { OFFLINE_HEADER, setOffline } from './connectivity';
import type { components } from './schema';
import { getStoredToken } from './session';

/** A JSON value as it arrives from the server, before it has been checked. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The machine-readable reason of an error answer, as the server's OpenAPI document lists them. */
export type ErrorCode = components['schemas']['ErrorCode'];

/** The values an error's message names (a unit, a date), as texts for translations. */
export type ErrorParams = Readonly<Record<string, string>>;

/** An error answer from the server (non-2xx status). */
export class ApiError extends Error {
  readonly status: number;
  /** The parsed JSON body, or null when the body was empty or not JSON. */
  readonly body: Json;
  /**
   * What went wrong, for the app to translate; null when the answer carried no code (a proxy's
   * error page). A newer server may send a code this build does not know: it then matches no
   * translation and the server's message is shown.
   */
  readonly code: ErrorCode | null;
  readonly params: ErrorParams;

  constructor(message: string, status: number, body: Json) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.code = isJsonObject(body) && typeof body.code === 'string' ? (body.code as ErrorCode) : null;
    this.params = isJsonObject(body) ? paramsOf(body.params) : {};
  }
}

/** `params` with its numbers and booleans as text; anything else (nested values) is left out. */
function paramsOf(value: Json | undefined): ErrorParams {
  if (!isJsonObject(value)) return {};
  const params: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') params[key] = String(item);
  }
  return params;
}

export const NETWORK_ERROR_MESSAGE = 'Network error occurred';

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The API's base URL, from `<meta name="pillbox-api-base">`. Empty (the default) means the
 * same origin as the page, which is how the binary serves the app.
 */
export function apiBaseUrl(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="pillbox-api-base"]');
  const base = meta?.content.trim() ?? '';
  return base.replace(/\/+$/, '');
}

let unauthorizedHandler: (() => void) | null = null;

/**
 * Called when the server refuses the stored token (401 to a signed-in call), e.g. because
 * the password or two-factor settings were changed in another session.
 */
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  unauthorizedHandler = handler;
}

async function readJson(response: Response): Promise<Json> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return null;
  }
}

export interface JsonCall {
  method: string;
  /** The JSON text to send. */
  body: string | undefined;
  signal: AbortSignal | null;
  /** The session sent, or null for a call made without one (see http.ts `Caller`). */
  token: string | null;
}

/**
 * Sends one JSON call (http.ts's transport) and returns the OK answer unread. Throws ApiError
 * for a non-OK status and an Error "Network error occurred" when the request could not be
 * made at all; every answer from the server itself says whether the app is offline.
 */
export async function sendJson(path: string, call: JsonCall): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (call.body !== undefined) headers['Content-Type'] = 'application/json';
  if (call.token) headers.Authorization = `Bearer ${call.token}`;

  const response = await send(path, { method: call.method, headers, body: call.body, signal: call.signal }, true);
  setOffline(response.headers.get(OFFLINE_HEADER) === '1');
  if (!response.ok) throw refusal(response, await readJson(response), call.token);
  return response;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** A call made without a session (see http.ts `Caller`). */
  anonymous?: boolean;
}

/**
 * The calls not yet moved to the typed client (http.ts): sends one request and returns the
 * parsed JSON body (null when empty), with sendJson's errors.
 */
export async function apiRequest(path: string, options: RequestOptions = {}): Promise<Json> {
  const response = await sendJson(path, {
    method: options.method ?? 'GET',
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal ?? null,
    token: options.anonymous ? null : getStoredToken(),
  });
  return readJson(response);
}

/**
 * Fetches from the API; a request that could not be made throws "Network error occurred"
 * (and, for JSON calls, marks the app offline), unless the caller aborted it.
 */
async function send(path: string, init: RequestInit, marksOffline: boolean): Promise<Response> {
  try {
    return await fetch(`${apiBaseUrl()}${path}`, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    if (marksOffline) setOffline(true);
    throw new Error(NETWORK_ERROR_MESSAGE, { cause: error });
  }
}

/** The error for a non-OK answer; a 401 to the current session signs it out. */
function refusal(response: Response, body: Json, token: string | null): ApiError {
  // A token replaced while this request was on its way is not a reason to sign out.
  if (response.status === 401 && token !== null && token === getStoredToken()) {
    unauthorizedHandler?.();
  }
  const message =
    isJsonObject(body) && typeof body.message === 'string' && body.message !== ''
      ? body.message
      : `HTTP error! status: ${response.status}`;
  return new ApiError(message, response.status, body);
}

export interface FileRequestOptions {
  method?: 'GET' | 'POST';
  /** A file sent as it is (an import), with its content type. */
  body?: Blob;
  contentType?: string;
  signal?: AbortSignal;
}

/**
 * Sends a signed-in request whose body or answer is a file rather than JSON (export
 * downloads, imports) and returns the OK response for the caller to read. Errors are thrown
 * as apiRequest throws them.
 */
export async function apiFileRequest(path: string, options: FileRequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.contentType) headers['Content-Type'] = options.contentType;
  const token = getStoredToken();
  if (token) headers.Authorization = `Bearer ${token}`;

  const response = await send(path, { method: options.method ?? 'GET', headers, body: options.body, signal: options.signal }, false);
  if (response.ok) return response;
  throw refusal(response, await readJson(response), token);
}

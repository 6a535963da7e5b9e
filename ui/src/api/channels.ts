// A person's channels (/api/channels): ntfy, Gotify, Telegram and signed webhooks, which join
// push and e-mail as delivery methods (`channel:<id>`). Secrets are write-only: the server
// says whether one is set, and shows a webhook's signing secret once, when it is made.
//
// These calls still check their answers here: the OpenAPI document describes a channel's
// `config` as an object without fields and its kind, state and reason as plain strings, so
// the generated types cannot say what the screens read. Once the document names them, the
// calls move to the typed client (http.ts) like the others.
import { ApiError, apiRequest, isJsonObject, type Json } from './client';
import { codeParams, type CodeParams, type DeliveryMethod } from './notifications';

class FormatError extends Error {
  constructor(what: string) {
    super(`Invalid ${what} response format`);
    this.name = 'FormatError';
  }
}

const dataOf = (body: Json): Json | undefined => (isJsonObject(body) ? body.data : undefined);
const str = (value: Json | undefined): string => (typeof value === 'string' ? value : '');
const strOrNull = (value: Json | undefined): string | null => (typeof value === 'string' && value !== '' ? value : null);

function oneOf<T extends string>(allowed: readonly T[], value: Json | undefined, fallback: T): T {
  return allowed.find((candidate) => candidate === value) ?? fallback;
}

export const CHANNEL_KINDS = ['ntfy', 'gotify', 'telegram', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** The events a webhook can receive, in the server's order. */
export const WEBHOOK_EVENTS = [
  'reminder.due',
  'reminder.handled',
  'dose.logged',
  'dose.missed',
  'stock.low',
  'refill.due',
  'batch.expiring',
  'batch.expired',
  'escalation.sent',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const CHANNEL_STATES = ['active', 'pending', 'disabled'] as const;
/** active; pending: a Telegram chat not linked yet; disabled: see `state_reason`. */
export type ChannelState = (typeof CHANNEL_STATES)[number];

/** Why a channel is disabled: a webhook answered 410 Gone, or the Telegram chat sent /stop. */
export const STATE_REASONS = ['gone', 'telegram_stopped'] as const;
export type StateReason = (typeof STATE_REASONS)[number];

/** The settings a channel shows: never a token, password or secret. */
export interface ChannelConfig {
  server_url: string | null;
  topic: string | null;
  username: string | null;
  url: string | null;
  events: WebhookEvent[];
}

export interface Channel {
  id: number;
  kind: ChannelKind;
  name: string;
  config: ChannelConfig;
  /** A token, password or webhook secret is set. */
  secret_set: boolean;
  enabled: boolean;
  state: ChannelState;
  state_reason: StateReason | null;
  /** The channel's own answer to the last send, in its words (English), and when. */
  last_result: string | null;
  last_result_at: string | null;
  created_at: string;
  /** The word that chooses it for reminders: `channel:<id>`. */
  method: DeliveryMethod;
}

/** A channel as answered once, when made or linked again. */
export interface CreatedChannel {
  channel: Channel;
  /** A webhook's signing secret (`whsec_…`): shown this once. */
  secret: string | null;
  /** A Telegram channel: the link that binds a chat. */
  link_url: string | null;
}

/** What the add form sends; the fields of `config` depend on the kind. */
export interface NewChannel {
  kind: ChannelKind;
  name: string;
  config: Record<string, string | string[]>;
}

/**
 * The settings a change sends: those left out stay as they are (a secret included), `null`
 * takes one away (an ntfy token or user name).
 */
export type ChannelConfigChange = Record<string, string | string[] | null>;

/** A change: the name, the switch, the settings. */
export interface ChannelChanges {
  name?: string;
  enabled?: boolean;
  config?: ChannelConfigChange;
}

/** What a test message did: the channel's own answer, and the code to translate. */
export interface ChannelTestResult {
  ok: boolean;
  /** The channel's answer ("ntfy answered 401: the access token was refused"). */
  detail: string;
  code: string;
  params: CodeParams;
}

function parseConfig(value: Json | undefined): ChannelConfig {
  const c = isJsonObject(value) ? value : {};
  const listed = Array.isArray(c.events) ? c.events : [];
  const events = WEBHOOK_EVENTS.filter((event) => listed.includes(event));
  return {
    server_url: strOrNull(c.server_url),
    topic: strOrNull(c.topic),
    username: strOrNull(c.username),
    url: strOrNull(c.url),
    events,
  };
}

export function parseChannel(value: Json | undefined): Channel {
  if (!isJsonObject(value) || typeof value.id !== 'number') throw new FormatError('channel');
  const kind = CHANNEL_KINDS.find((k) => k === value.kind);
  if (!kind) throw new FormatError('channel');
  return {
    id: value.id,
    kind,
    name: str(value.name),
    config: parseConfig(value.config),
    secret_set: value.secret_set === true,
    enabled: value.enabled !== false,
    state: oneOf(CHANNEL_STATES, value.state, 'active'),
    state_reason: STATE_REASONS.find((reason) => reason === value.state_reason) ?? null,
    last_result: strOrNull(value.last_result),
    last_result_at: strOrNull(value.last_result_at),
    created_at: str(value.created_at),
    method: `channel:${value.id}`,
  };
}

function parseCreated(body: Json): CreatedChannel {
  const data = dataOf(body);
  if (!isJsonObject(data)) throw new FormatError('channel');
  return { channel: parseChannel(data), secret: strOrNull(data.secret), link_url: strOrNull(data.link_url) };
}

/** The person's channels, oldest first. A kind this app does not know is left out. */
export async function listChannels(signal?: AbortSignal): Promise<Channel[]> {
  const data = dataOf(await apiRequest('/api/channels', { signal }));
  if (!Array.isArray(data)) throw new FormatError('channels');
  return data.filter((item) => isJsonObject(item) && CHANNEL_KINDS.some((kind) => kind === item.kind)).map(parseChannel);
}

/**
 * Adds a channel. Refusals carry `channel_invalid` or `channel_address_not_allowed` with
 * `params.field` naming the setting, or `telegram_not_configured`.
 */
export async function createChannel(input: NewChannel): Promise<CreatedChannel> {
  return parseCreated(await apiRequest('/api/channels', { method: 'POST', body: input }));
}

export async function updateChannel(id: number, changes: ChannelChanges): Promise<Channel> {
  const data = dataOf(await apiRequest(`/api/channels/${id}`, { method: 'PUT', body: changes }));
  return parseChannel(data);
}

/** Deletes a channel; the server takes it out of every delivery method list that chose it. */
export async function deleteChannel(id: number): Promise<void> {
  await apiRequest(`/api/channels/${id}`, { method: 'DELETE' });
}

/** A new Telegram link for a channel waiting for its chat (or stopped from it). */
export async function relinkChannel(id: number): Promise<CreatedChannel> {
  return parseCreated(await apiRequest(`/api/channels/${id}/link`, { method: 'POST' }));
}

function parseTestResult(body: Json): ChannelTestResult | null {
  const data = dataOf(body);
  if (!isJsonObject(data) || typeof data.ok !== 'boolean') return null;
  return { ok: data.ok, detail: str(data.detail), code: str(data.code), params: codeParams(data.params) };
}

/**
 * Sends a test message now. Resolves with the channel's answer whether it took the message
 * or not (the server answers 409 or 502 `delivery_failed` with the same result); rejects for
 * anything else (a channel gone, the network).
 */
export async function testChannel(id: number): Promise<ChannelTestResult> {
  try {
    const result = parseTestResult(await apiRequest(`/api/channels/${id}/test`, { method: 'POST' }));
    if (!result) throw new FormatError('channel test');
    return result;
  } catch (error) {
    const refused = error instanceof ApiError && error.code === 'delivery_failed' ? parseTestResult(error.body) : null;
    if (refused) return refused;
    throw error;
  }
}

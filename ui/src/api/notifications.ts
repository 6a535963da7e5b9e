// Reminders (/api/notifications): the scheduled list, delivery history, push subscriptions,
// the delivery defaults and test notifications (the Notifications page).
import { ApiError, apiRequest, isJsonObject, type Json } from './client';
import { FormatError, dataOf } from './medicationParse';
import { nonEmptyString } from './parse';
import type { components } from './schema';

/** The statuses of the document's ReminderStatus, listed for checking answers at run time. */
export type NotificationStatus = components['schemas']['ReminderStatus'];
export const NOTIFICATION_STATUSES = ['scheduled', 'sent', 'cancelled', 'failed'] as const satisfies readonly NotificationStatus[];

/** SPEC §3 "Scheduled notification". */
export interface ScheduledNotification {
  id: number;
  /** The server's (English) title; the page shows its own translation by `kind`. */
  title: string;
  /** dose (planned from a schedule), one_off, or low_stock. */
  kind: string;
  medication_id: number | null;
  medication_name: string;
  scheduled_time: string;
  reminder_time: string;
  status: NotificationStatus;
  message: string | null;
  /** When a logged dose answered this reminder, else null. */
  answered_at: string | null;
  /** Why its delivery failed (status failed), else null. */
  failure_reason: string | null;
}

export interface NotificationList {
  notifications: ScheduledNotification[];
  total: number;
}

/** SPEC §9: the page asks for at most 50. */
export const SCHEDULED_LIMIT = 50;

function str(value: Json | undefined): string {
  return typeof value === 'string' ? value : '';
}

function count(value: Json | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

export function parseNotification(value: Json | undefined): ScheduledNotification {
  if (!isJsonObject(value) || typeof value.id !== 'number') throw new FormatError('notification');
  const status = NOTIFICATION_STATUSES.find((s) => s === value.status) ?? 'scheduled';
  return {
    id: value.id,
    title: str(value.title),
    kind: str(value.kind) || 'dose',
    medication_id: typeof value.medication_id === 'number' ? value.medication_id : null,
    medication_name: str(value.medication_name),
    scheduled_time: str(value.scheduled_time),
    reminder_time: str(value.reminder_time),
    status,
    message: nonEmptyString(value.message),
    answered_at: nonEmptyString(value.answered_at),
    failure_reason: nonEmptyString(value.failure_reason),
  };
}

/** The scheduled reminders, soonest first. */
export async function listScheduledNotifications(signal?: AbortSignal): Promise<NotificationList> {
  const params = new URLSearchParams({ status: 'scheduled', limit: String(SCHEDULED_LIMIT), offset: '0' });
  const body = await apiRequest(`/api/notifications?${params.toString()}`, { signal });
  const data = dataOf(body);
  if (!Array.isArray(data) || !isJsonObject(body)) throw new FormatError('notifications');
  const notifications = data
    .map(parseNotification)
    .sort((a, b) => Date.parse(a.scheduled_time) - Date.parse(b.scheduled_time));
  const pagination = isJsonObject(body.pagination) ? body.pagination : {};
  return { notifications, total: count(pagination.total, notifications.length) };
}

/** Cancels a scheduled reminder (only a scheduled one can be cancelled). */
export async function cancelNotification(id: number): Promise<void> {
  await apiRequest(`/api/notifications/${id}`, { method: 'DELETE' });
}

/** `push`, `email`, or one of the person's channels: `channel:7`. */
export type DeliveryMethod = components['schemas']['DeliveryMethod'];
/** The methods every account has; channels come after them, in the order they were added. */
export const DELIVERY_METHODS = ['push', 'email'] as const satisfies readonly DeliveryMethod[];

const CHANNEL_METHOD = /^channel:(\d+)$/;

/** The channel id a delivery method names, or null for push and e-mail. */
export function channelIdOf(method: string): number | null {
  const match = CHANNEL_METHOD.exec(method);
  return match ? Number(match[1]) : null;
}

/** Push, e-mail or a channel's `channel:<id>`; anything else this app cannot offer. */
export function isDeliveryMethod(value: Json | undefined): value is DeliveryMethod {
  return typeof value === 'string' && (value === 'push' || value === 'email' || CHANNEL_METHOD.test(value));
}

/** The values a server code names (a count of devices, an address, a reason, whether it retries). */
export type CodeParams = Record<string, string | number | boolean>;

export function codeParams(value: Json | undefined): CodeParams {
  if (!isJsonObject(value)) return {};
  const params: CodeParams = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') params[key] = v;
  }
  return params;
}

/** One step of a test (or send-now) notification: a channel's outcome, or the fallback's. */
export interface ChannelResult {
  channel: DeliveryMethod;
  ok: boolean;
  /** The server's English words, for a code this app does not know. */
  detail: string;
  /** What happened, as a code with its values (`push_sent` with `delivered` and `devices`…). */
  code: string;
  params: CodeParams;
  /** The e-mail stands in for a push no device took. */
  fallback: boolean;
}

function parseResults(body: Json): ChannelResult[] {
  const data = dataOf(body);
  const results = isJsonObject(data) && Array.isArray(data.results) ? data.results : [];
  return results.filter(isJsonObject).map((r) => ({
    channel: isDeliveryMethod(r.channel) ? r.channel : 'push',
    ok: r.ok === true,
    detail: str(r.detail),
    code: str(r.code),
    params: codeParams(r.params),
    fallback: r.fallback === true,
  }));
}

/**
 * Sends a test notification over the given methods. Resolves with each channel's outcome
 * when at least one delivered; rejects (ApiError, the server's message) when none did.
 */
export async function sendTestNotification(methods: readonly DeliveryMethod[]): Promise<ChannelResult[]> {
  const body = await apiRequest('/api/notifications/test', {
    method: 'POST',
    body: { deliveryMethods: [...methods] },
  });
  return parseResults(body);
}

/**
 * The channel outcomes a failed test (or send-now) carried: the server answers 502 with
 * each channel's detail when none delivered. Empty for any other error.
 */
export function channelResultsOf(error: unknown): ChannelResult[] {
  return error instanceof ApiError && error.body !== null ? parseResults(error.body) : [];
}

export const DELIVERY_KINDS = ['reminder', 'repeat', 'low_stock', 'test'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** One attempt to deliver a notification over one channel. */
export interface Delivery {
  id: number;
  notification_id: number | null;
  kind: DeliveryKind;
  title: string;
  medication_name: string | null;
  channel: DeliveryMethod;
  /** For a channel row: its kind (ntfy, gotify, telegram, webhook) and name, kept after it is deleted. */
  channel_kind: string | null;
  channel_name: string | null;
  attempted_at: string;
  result: 'sent' | 'failed';
  error: string | null;
  /** E-mail was used because every push failed. */
  fallback: boolean;
  /** The title as a code (`dose`, `dose_repeat`, `low_stock`, `test`) with its values. */
  title_code: string;
  title_params: CodeParams;
  /** What happened as a code with its values; null on rows older than codes. */
  result_code: string | null;
  result_params: CodeParams;
}

export interface DeliveryPage {
  deliveries: Delivery[];
  total: number;
}

/** SPEC §3 "Notification history filters". */
export interface DeliveryHistoryQuery {
  limit?: number;
  offset?: number;
  start_date?: string;
  end_date?: string;
}

/** Deliveries per page of the History tab. */
export const DELIVERY_PAGE_SIZE = 50;

export function parseDelivery(value: Json | undefined): Delivery {
  if (!isJsonObject(value) || typeof value.id !== 'number') throw new FormatError('delivery');
  return {
    id: value.id,
    notification_id: typeof value.notification_id === 'number' ? value.notification_id : null,
    kind: DELIVERY_KINDS.find((kind) => kind === value.kind) ?? 'reminder',
    title: str(value.title),
    medication_name: nonEmptyString(value.medication_name),
    channel: isDeliveryMethod(value.channel) ? value.channel : 'push',
    channel_kind: nonEmptyString(value.channel_kind),
    channel_name: nonEmptyString(value.channel_name),
    attempted_at: str(value.attempted_at),
    result: value.result === 'sent' ? 'sent' : 'failed',
    error: nonEmptyString(value.error),
    fallback: value.fallback === true,
    title_code: str(value.title_code),
    title_params: codeParams(value.title_params),
    result_code: nonEmptyString(value.result_code),
    result_params: codeParams(value.result_params),
  };
}

/** The delivery history, newest first. */
export async function listDeliveries(query: DeliveryHistoryQuery = {}, signal?: AbortSignal): Promise<DeliveryPage> {
  const params = new URLSearchParams({
    limit: String(query.limit ?? DELIVERY_PAGE_SIZE),
    offset: String(query.offset ?? 0),
  });
  if (query.start_date) params.set('start_date', query.start_date);
  if (query.end_date) params.set('end_date', query.end_date);
  const body = await apiRequest(`/api/notifications/history?${params.toString()}`, { signal });
  const data = dataOf(body);
  if (!Array.isArray(data) || !isJsonObject(body)) throw new FormatError('delivery history');
  const deliveries = data.map(parseDelivery);
  const pagination = isJsonObject(body.pagination) ? body.pagination : {};
  return { deliveries, total: count(pagination.total, deliveries.length) };
}

/** Tells the server where to push this browser's notifications (`PushSubscription.toJSON()`). */
export async function registerPushSubscription(subscription: PushSubscriptionJSON, userAgent: string): Promise<void> {
  await apiRequest('/api/notifications/push/register', { method: 'POST', body: { subscription, userAgent } });
}

/** Forgets a push endpoint (no error when the server did not know it). */
export async function unregisterPushSubscription(endpoint: string): Promise<void> {
  await apiRequest('/api/notifications/push/unregister', { method: 'POST', body: { endpoint } });
}

/** Whether the server sends reminders to this browser's endpoint, and to how many devices in all. */
export interface PushStatus {
  registered: boolean;
  devices: number;
}

export async function getPushStatus(endpoint: string): Promise<PushStatus> {
  const data = dataOf(await apiRequest('/api/notifications/push/status', { method: 'POST', body: { endpoint } }));
  if (!isJsonObject(data)) throw new FormatError('push status');
  return { registered: data.registered === true, devices: count(data.devices, 0) };
}

/** The server's VAPID public key (base64url), or '' when none is configured. */
export async function getPushPublicKey(): Promise<string> {
  const data = dataOf(await apiRequest('/api/notifications/push/public-key', { anonymous: true }));
  return isJsonObject(data) ? str(data.publicKey) : '';
}

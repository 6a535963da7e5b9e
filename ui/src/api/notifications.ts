// Reminders (/api/notifications): the scheduled list, delivery history, push subscriptions,
// the delivery defaults and test notifications (the Notifications page).
import { ApiError, isJsonObject, type Json } from './client';
import { answer, api, callerHeaders, done } from './http';
import type { components } from './schema';

type Schemas = components['schemas'];

/** The statuses of the document's ReminderStatus, listed for checking answers at run time. */
export type NotificationStatus = components['schemas']['ReminderStatus'];
export const NOTIFICATION_STATUSES = ['scheduled', 'sent', 'cancelled', 'failed'] as const satisfies readonly NotificationStatus[];

/** SPEC §3 "Scheduled notification". */
export type ScheduledNotification = Omit<
  Schemas['Reminder'],
  'medication_id' | 'message' | 'answered_at' | 'failure_reason'
> & {
  medication_id: number | null;
  message: string | null;
  /** When a logged dose answered this reminder, else null. */
  answered_at: string | null;
  /** Why its delivery failed (status failed), else null. */
  failure_reason: string | null;
};

export interface NotificationList {
  notifications: ScheduledNotification[];
  total: number;
}

/** SPEC §9: the page asks for at most 50. */
export const SCHEDULED_LIMIT = 50;

function scheduledOf(reminder: Schemas['Reminder']): ScheduledNotification {
  return {
    ...reminder,
    medication_id: reminder.medication_id ?? null,
    message: reminder.message ? reminder.message : null,
    answered_at: reminder.answered_at ?? null,
    failure_reason: reminder.failure_reason ?? null,
  };
}

/** The scheduled reminders, soonest first. */
export async function listScheduledNotifications(signal?: AbortSignal): Promise<NotificationList> {
  const query = { status: 'scheduled', limit: SCHEDULED_LIMIT, offset: 0 } as const;
  const body = await answer(api.GET('/api/notifications', { headers: callerHeaders(), params: { query }, signal }));
  const notifications = body.data
    .map(scheduledOf)
    .sort((a, b) => Date.parse(a.scheduled_time) - Date.parse(b.scheduled_time));
  return { notifications, total: body.pagination.total };
}

/** Cancels a scheduled reminder (only a scheduled one can be cancelled). */
export async function cancelNotification(id: number): Promise<void> {
  await done(api.DELETE('/api/notifications/{id}', { headers: callerHeaders(), params: { path: { id } } }));
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

/** The channel results in an error body (which the document does not type). */
function resultsInError(body: Json): ChannelResult[] {
  const data = isJsonObject(body) ? body.data : undefined;
  const str = (value: Json | undefined) => (typeof value === 'string' ? value : '');
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
  const body = { deliveryMethods: [...methods] };
  return (await answer(api.POST('/api/notifications/test', { headers: callerHeaders(), body }))).data.results;
}

/**
 * The channel outcomes a failed test (or send-now) carried: the server answers 502 with
 * each channel's detail when none delivered. Empty for any other error.
 */
export function channelResultsOf(error: unknown): ChannelResult[] {
  return error instanceof ApiError && error.body !== null ? resultsInError(error.body) : [];
}

export const DELIVERY_KINDS = ['reminder', 'repeat', 'low_stock', 'refill', 'batch_expiring', 'batch_expired', 'test'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** One attempt to deliver a notification over one channel. */
export type Delivery = Omit<Schemas['Delivery'], 'notification_id' | 'medication_name' | 'error'> & {
  notification_id: number | null;
  medication_name: string | null;
  error: string | null;
};

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

function deliveryOf(delivery: Schemas['Delivery']): Delivery {
  return {
    ...delivery,
    notification_id: delivery.notification_id ?? null,
    medication_name: delivery.medication_name ? delivery.medication_name : null,
    error: delivery.error ? delivery.error : null,
  };
}

/** The delivery history, newest first. */
export async function listDeliveries(query: DeliveryHistoryQuery = {}, signal?: AbortSignal): Promise<DeliveryPage> {
  const params = {
    query: {
      limit: query.limit ?? DELIVERY_PAGE_SIZE,
      offset: query.offset ?? 0,
      ...(query.start_date ? { start_date: query.start_date } : {}),
      ...(query.end_date ? { end_date: query.end_date } : {}),
    },
  };
  const body = await answer(api.GET('/api/notifications/history', { headers: callerHeaders(), params, signal }));
  return { deliveries: body.data.map(deliveryOf), total: body.pagination.total };
}

/** Tells the server where to push this browser's notifications (`PushSubscription.toJSON()`). */
export async function registerPushSubscription(subscription: PushSubscriptionJSON, userAgent: string): Promise<void> {
  // A browser's subscription always has its endpoint and keys (the DOM type leaves them
  // optional); the server refuses one without them.
  const body = { subscription: subscription as Schemas['SubscriptionBody'], userAgent };
  await done(api.POST('/api/notifications/push/register', { headers: callerHeaders(), body }));
}

/** Forgets a push endpoint (no error when the server did not know it). */
export async function unregisterPushSubscription(endpoint: string): Promise<void> {
  await done(api.POST('/api/notifications/push/unregister', { headers: callerHeaders(), body: { endpoint } }));
}

/** Whether the server sends reminders to this browser's endpoint, and to how many devices in all. */
export type PushStatus = Schemas['PushStatus'];

export async function getPushStatus(endpoint: string): Promise<PushStatus> {
  return (await answer(api.POST('/api/notifications/push/status', { headers: callerHeaders(), body: { endpoint } }))).data;
}

/** The server's VAPID public key (base64url), or '' when none is configured. */
export async function getPushPublicKey(): Promise<string> {
  return (await answer(api.GET('/api/notifications/push/public-key'))).data.publicKey;
}

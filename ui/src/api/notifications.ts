// Scheduled reminders (/api/notifications): the Notifications page's Scheduled tab.
import { apiRequest, isJsonObject, type Json } from './client';
import { FormatError, dataOf } from './medicationParse';

export const NOTIFICATION_STATUSES = ['scheduled', 'sent', 'cancelled', 'failed'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** SPEC §3 "Scheduled notification". */
export interface ScheduledNotification {
  id: number;
  title: string;
  medication_id: number | null;
  medication_name: string;
  scheduled_time: string;
  reminder_time: string;
  status: NotificationStatus;
  message: string | null;
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

export function parseNotification(value: Json | undefined): ScheduledNotification {
  if (!isJsonObject(value) || typeof value.id !== 'number') throw new FormatError('notification');
  const status = NOTIFICATION_STATUSES.find((s) => s === value.status) ?? 'scheduled';
  return {
    id: value.id,
    title: str(value.title),
    medication_id: typeof value.medication_id === 'number' ? value.medication_id : null,
    medication_name: str(value.medication_name),
    scheduled_time: str(value.scheduled_time),
    reminder_time: str(value.reminder_time),
    status,
    message: typeof value.message === 'string' && value.message !== '' ? value.message : null,
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
  const total =
    typeof pagination.total === 'number' && Number.isFinite(pagination.total) ? pagination.total : notifications.length;
  return { notifications, total };
}

/** Cancels a scheduled reminder (only a scheduled one can be cancelled). */
export async function cancelNotification(id: number): Promise<void> {
  await apiRequest(`/api/notifications/${id}`, { method: 'DELETE' });
}

export const DELIVERY_METHODS = ['push', 'email'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

/** One channel's outcome of a test (or send-now) notification. */
export interface ChannelResult {
  channel: DeliveryMethod;
  ok: boolean;
  detail: string;
}

function parseResults(body: Json): ChannelResult[] {
  const data = dataOf(body);
  const results = isJsonObject(data) && Array.isArray(data.results) ? data.results : [];
  return results.filter(isJsonObject).map((r) => ({
    channel: r.channel === 'email' ? 'email' : 'push',
    ok: r.ok === true,
    detail: str(r.detail),
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

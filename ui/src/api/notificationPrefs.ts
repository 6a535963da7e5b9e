// Reminder preferences: the global ones and one medication's (the preferences dialog), and
// the Settings page's notification settings. /work/notes/notifications-api.md has the contract.
import { apiRequest, isJsonObject, type Json } from './client';
import { FormatError, dataOf } from './medicationParse';
import { DELIVERY_METHODS, isDeliveryMethod, type DeliveryMethod } from './notifications';

/** SPEC §3 "Global notification preferences", plus the repeat settings and the master switch. */
export interface GlobalPreferences {
  email_notifications_enabled: boolean;
  push_notifications_enabled: boolean;
  notification_sound_enabled: boolean;
  notification_vibration_enabled: boolean;
  default_reminder_minutes_before: number;
  default_delivery_methods: DeliveryMethod[];
  reminders_enabled: boolean;
  repeat_interval_minutes: number;
  repeat_max: number;
  /** Push and e-mail say "Time for your 08:00 medicines" without naming them. */
  hide_medication_names: boolean;
  /** "If no device takes a push, send it by e-mail"; on only while e-mail notifications are. */
  email_fallback_enabled: boolean;
  /** Read-only: whether this server can send e-mail at all. */
  email_available: boolean;
}

export type GlobalPreferencesInput = Partial<Omit<GlobalPreferences, 'email_available'>>;

/** SPEC §3 "Per-medication notification preferences", as the server resolves them. */
export interface MedicationPreferences {
  medication_id: number;
  /** The medication's own methods, else the global default. */
  delivery_methods: DeliveryMethod[];
  reminder_minutes_before: number;
  custom_message: string | null;
  /** True while the medication has no preferences of its own. */
  uses_defaults: boolean;
}

/** The medication's own preferences; an empty `custom_message` removes the message. */
export type MedicationPreferencesInput =
  | { delivery_methods: DeliveryMethod[]; reminder_minutes_before: number; custom_message: string }
  | { use_defaults: true };

/** SPEC §3 "Notification settings" (the Settings page). */
export interface NotificationSettings {
  medication_reminders: boolean;
  reminder_time_before: number;
  /** HH:mm. */
  daily_reminder_time: string;
  push_notifications: boolean;
  email_notifications: boolean;
}

/** SPEC §3 defaults, for fields an answer leaves out. */
const DEFAULT_MINUTES_BEFORE = 15;
const DEFAULT_REPEAT_INTERVAL = 10;
const DEFAULT_REPEAT_MAX = 3;
const DEFAULT_DAILY_TIME = '09:00';

function bool(value: Json | undefined, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

function minutes(value: Json | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}

/** The known methods of a list, each once: push and e-mail first, then channels as listed. */
function methods(value: Json | undefined, fallback: DeliveryMethod[]): DeliveryMethod[] {
  if (!Array.isArray(value)) return fallback;
  const channels = value.filter(isDeliveryMethod).filter((method) => !DELIVERY_METHODS.some((m) => m === method));
  return [...DELIVERY_METHODS.filter((method) => value.includes(method)), ...new Set(channels)];
}

function objectData(body: Json, what: string) {
  const data = dataOf(body);
  if (!isJsonObject(data)) throw new FormatError(what);
  return data;
}

export function parseGlobalPreferences(body: Json): GlobalPreferences {
  const p = objectData(body, 'preferences');
  return {
    email_notifications_enabled: bool(p.email_notifications_enabled, false),
    push_notifications_enabled: bool(p.push_notifications_enabled, true),
    notification_sound_enabled: bool(p.notification_sound_enabled, true),
    notification_vibration_enabled: bool(p.notification_vibration_enabled, true),
    default_reminder_minutes_before: minutes(p.default_reminder_minutes_before, DEFAULT_MINUTES_BEFORE),
    default_delivery_methods: methods(p.default_delivery_methods, ['push']),
    reminders_enabled: bool(p.reminders_enabled, true),
    repeat_interval_minutes: minutes(p.repeat_interval_minutes, DEFAULT_REPEAT_INTERVAL),
    repeat_max: minutes(p.repeat_max, DEFAULT_REPEAT_MAX),
    hide_medication_names: bool(p.hide_medication_names, false),
    email_fallback_enabled: bool(p.email_fallback_enabled, false),
    email_available: bool(p.email_available, true),
  };
}

export function parseMedicationPreferences(body: Json): MedicationPreferences {
  const p = objectData(body, 'preferences');
  if (typeof p.medication_id !== 'number') throw new FormatError('preferences');
  return {
    medication_id: p.medication_id,
    delivery_methods: methods(p.delivery_methods, ['push']),
    reminder_minutes_before: minutes(p.reminder_minutes_before, DEFAULT_MINUTES_BEFORE),
    custom_message: typeof p.custom_message === 'string' && p.custom_message !== '' ? p.custom_message : null,
    uses_defaults: bool(p.uses_defaults, false),
  };
}

export function parseNotificationSettings(body: Json): NotificationSettings {
  const s = objectData(body, 'settings');
  return {
    medication_reminders: bool(s.medication_reminders, true),
    reminder_time_before: minutes(s.reminder_time_before, DEFAULT_MINUTES_BEFORE),
    daily_reminder_time:
      typeof s.daily_reminder_time === 'string' && /^\d{2}:\d{2}$/.test(s.daily_reminder_time)
        ? s.daily_reminder_time
        : DEFAULT_DAILY_TIME,
    push_notifications: bool(s.push_notifications, true),
    email_notifications: bool(s.email_notifications, false),
  };
}

export async function getGlobalPreferences(signal?: AbortSignal): Promise<GlobalPreferences> {
  return parseGlobalPreferences(await apiRequest('/api/notifications/preferences', { signal }));
}

/** Saves the given fields (the others keep their value) and answers all of them. */
export async function saveGlobalPreferences(changes: GlobalPreferencesInput): Promise<GlobalPreferences> {
  return parseGlobalPreferences(
    await apiRequest('/api/notifications/preferences', { method: 'PUT', body: changes }),
  );
}

export async function getMedicationPreferences(id: number, signal?: AbortSignal): Promise<MedicationPreferences> {
  return parseMedicationPreferences(await apiRequest(`/api/notifications/medications/${id}/preferences`, { signal }));
}

/** Saves the medication's own preferences, or `{ use_defaults: true }` drops them. */
export async function saveMedicationPreferences(
  id: number,
  input: MedicationPreferencesInput,
): Promise<MedicationPreferences> {
  return parseMedicationPreferences(
    await apiRequest(`/api/notifications/medications/${id}/preferences`, { method: 'PUT', body: input }),
  );
}

export async function getNotificationSettings(signal?: AbortSignal): Promise<NotificationSettings> {
  return parseNotificationSettings(await apiRequest('/api/notifications/settings', { signal }));
}

export async function saveNotificationSettings(settings: NotificationSettings): Promise<NotificationSettings> {
  return parseNotificationSettings(
    await apiRequest('/api/notifications/settings', { method: 'PUT', body: settings }),
  );
}

// Reminder preferences: the global ones and one medication's (the preferences dialog), and
// the Settings page's notification settings. /work/notes/notifications-api.md has the contract.
import { answer, api, callerHeaders } from './http';
import type { DeliveryMethod } from './notifications';
import type { components } from './schema';

type Schemas = components['schemas'];

/**
 * The person's reminder defaults. `hide_medication_names`: push and e-mail say "Time for
 * your 08:00 medicines" without naming them; `email_fallback_enabled`: "if no device takes a
 * push, send it by e-mail"; `email_available` (read-only): whether this server can send e-mail.
 */
export type GlobalPreferences = Schemas['Preferences'];

export type GlobalPreferencesInput = Partial<Omit<GlobalPreferences, 'email_available'>>;

/** SPEC §3 "Per-medication notification preferences", as the server resolves them. */
/** One medication's preferences: its own methods, else the global default (`uses_defaults`). */
export type MedicationPreferences = Omit<Schemas['MedicationPreferences'], 'custom_message'> & {
  custom_message: string | null;
};

/** The medication's own preferences; an empty `custom_message` removes the message. */
export type MedicationPreferencesInput =
  | { delivery_methods: DeliveryMethod[]; reminder_minutes_before: number; custom_message: string }
  | { use_defaults: true };

/** SPEC §3 "Notification settings" (the Settings page). */
/** The Settings page's notification settings; `daily_reminder_time` is HH:mm. */
export type NotificationSettings = Schemas['NotificationSettings'];

/** SPEC §3 defaults, for fields an answer leaves out. */
function medicationPreferencesOf(p: Schemas['MedicationPreferences']): MedicationPreferences {
  return { ...p, custom_message: p.custom_message ? p.custom_message : null };
}

export async function getGlobalPreferences(signal?: AbortSignal): Promise<GlobalPreferences> {
  return (await answer(api.GET('/api/notifications/preferences', { headers: callerHeaders(), signal }))).data;
}

export async function saveGlobalPreferences(changes: GlobalPreferencesInput): Promise<GlobalPreferences> {
  return (await answer(api.PUT('/api/notifications/preferences', { headers: callerHeaders(), body: changes }))).data;
}

const medication = (id: number) => ({ path: { id } });

export async function getMedicationPreferences(id: number, signal?: AbortSignal): Promise<MedicationPreferences> {
  const params = medication(id);
  const { data } = await answer(
    api.GET('/api/notifications/medications/{id}/preferences', { headers: callerHeaders(), params, signal }),
  );
  return medicationPreferencesOf(data);
}

export async function saveMedicationPreferences(
  id: number,
  input: MedicationPreferencesInput,
): Promise<MedicationPreferences> {
  const params = medication(id);
  const { data } = await answer(
    api.PUT('/api/notifications/medications/{id}/preferences', { headers: callerHeaders(), params, body: input }),
  );
  return medicationPreferencesOf(data);
}

export async function getNotificationSettings(signal?: AbortSignal): Promise<NotificationSettings> {
  return (await answer(api.GET('/api/notifications/settings', { headers: callerHeaders(), signal }))).data;
}

export async function saveNotificationSettings(settings: NotificationSettings): Promise<NotificationSettings> {
  return (await answer(api.PUT('/api/notifications/settings', { headers: callerHeaders(), body: settings }))).data;
}

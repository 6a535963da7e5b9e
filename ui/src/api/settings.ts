// The per-user settings kept on the server (GET/PUT /api/settings, DESIGN §6): the time
// zone schedules and day boundaries use, and a copy of the appearance settings.
import type { AppSettings } from '../settings/appSettings';
import { apiRequest, isJsonObject, type JsonObject } from './client';
import { dataOf } from './medicationParse';

/** Everything GET /api/settings answers, unchecked; the caller keeps what it knows. */
export async function getServerSettings(signal?: AbortSignal): Promise<JsonObject> {
  const data = dataOf(await apiRequest('/api/settings', { signal }));
  return isJsonObject(data) ? data : {};
}

/** The server's time zone for this user ("UTC" until someone sets it). */
export async function getServerTimezone(signal?: AbortSignal): Promise<string | null> {
  const data = dataOf(await apiRequest('/api/settings', { signal }));
  return isJsonObject(data) && typeof data.timezone === 'string' ? data.timezone : null;
}

export async function setServerTimezone(timezone: string): Promise<void> {
  await apiRequest('/api/settings', { method: 'PUT', body: { timezone } });
}

/** The appearance settings that follow the person to every device (and word reminders). */
export type SharedSettings = Pick<AppSettings, 'language' | 'dateFormat' | 'timeFormat' | 'theme'>;

export async function saveSharedSettings({ language, dateFormat, timeFormat, theme }: SharedSettings): Promise<void> {
  await apiRequest('/api/settings', { method: 'PUT', body: { language, dateFormat, timeFormat, theme } });
}

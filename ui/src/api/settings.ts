// The per-user settings kept on the server (GET/PUT /api/settings, DESIGN §6). The
// medication screens only need the time zone: schedules, dates and day boundaries use it.
import type { DateFormat, Language, TimeFormat } from '../settings/appSettings';
import { apiRequest, isJsonObject } from './client';
import { dataOf } from './medicationParse';

/** The server's time zone for this user ("UTC" until someone sets it). */
export async function getServerTimezone(signal?: AbortSignal): Promise<string | null> {
  const data = dataOf(await apiRequest('/api/settings', { signal }));
  return isJsonObject(data) && typeof data.timezone === 'string' ? data.timezone : null;
}

export async function setServerTimezone(timezone: string): Promise<void> {
  await apiRequest('/api/settings', { method: 'PUT', body: { timezone } });
}

/** What the server needs to write reminders the way this person reads them. */
export interface ReminderWords {
  language: Language;
  dateFormat: DateFormat;
  timeFormat: TimeFormat;
}

export async function setReminderWords({ language, dateFormat, timeFormat }: ReminderWords): Promise<void> {
  await apiRequest('/api/settings', { method: 'PUT', body: { language, dateFormat, timeFormat } });
}

// The per-user settings kept on the server (GET/PUT /api/settings, DESIGN §6): the time
// zone schedules and day boundaries use, and a copy of the appearance settings.
import type { AppSettings } from '../settings/appSettings';
import { answer, api, callerHeaders, done } from './http';
import type { components } from './schema';

/** Everything GET /api/settings answers; the caller keeps what it knows. */
export type ServerSettings = components['schemas']['AppSettings'];

export async function getServerSettings(signal?: AbortSignal): Promise<ServerSettings> {
  return (await answer(api.GET('/api/settings', { headers: callerHeaders(), signal }))).data;
}

/** The server's time zone for this user ("UTC" until someone sets it). */
export async function getServerTimezone(signal?: AbortSignal): Promise<string> {
  return (await getServerSettings(signal)).timezone;
}

export async function setServerTimezone(timezone: string): Promise<void> {
  await done(api.PUT('/api/settings', { headers: callerHeaders(), body: { timezone } }));
}

/** The appearance settings that follow the person to every device (and word reminders). */
export type SharedSettings = Pick<AppSettings, 'language' | 'dateFormat' | 'timeFormat' | 'theme'>;

export async function saveSharedSettings({ language, dateFormat, timeFormat, theme }: SharedSettings): Promise<void> {
  await done(api.PUT('/api/settings', { headers: callerHeaders(), body: { language, dateFormat, timeFormat, theme } }));
}

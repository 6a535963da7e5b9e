// The per-user settings kept on the server (GET/PUT /api/settings, DESIGN §6): the time
// zone schedules and day boundaries use, and a copy of the appearance settings.
import type { AppSettings } from '../settings/appSettings';
import { answer, api, callerHeaders, done } from './http';
import type { components } from './schema';

/** Everything GET /api/settings answers; the caller keeps what it knows. */
export type ServerSettings = components['schemas']['AppSettings'];

/**
 * The request under way, which a second caller for the same session meanwhile shares (the
 * start asks twice at once: the appearance settings' sync and the time zone).
 */
let asking: { caller: string; answer: Promise<ServerSettings> } | null = null;

export function getServerSettings(): Promise<ServerSettings> {
  const headers = callerHeaders();
  const caller = JSON.stringify(headers);
  if (asking?.caller === caller) return asking.answer;
  const current = { caller, answer: answer(api.GET('/api/settings', { headers })).then(({ data }) => data) };
  asking = current;
  const settled = () => {
    if (asking === current) asking = null;
  };
  current.answer.then(settled, settled);
  return current.answer;
}

/** The server's time zone for this user ("UTC" until someone sets it). */
export async function getServerTimezone(): Promise<string> {
  return (await getServerSettings()).timezone;
}

/** Changes some of the settings; a question asked before the change is not shared after it. */
async function saveSettings(body: { timezone: string } | SharedSettings): Promise<void> {
  await done(api.PUT('/api/settings', { headers: callerHeaders(), body }));
  asking = null;
}

export async function setServerTimezone(timezone: string): Promise<void> {
  await saveSettings({ timezone });
}

/** The appearance settings that follow the person to every device (and word reminders). */
export type SharedSettings = Pick<AppSettings, 'language' | 'dateFormat' | 'timeFormat' | 'theme'>;

export async function saveSharedSettings({ language, dateFormat, timeFormat, theme }: SharedSettings): Promise<void> {
  await saveSettings({ language, dateFormat, timeFormat, theme });
}

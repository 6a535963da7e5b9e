// Language, date and time formats and theme live in the browser (spec §3,
// "dosage_app_settings") and, per account, on the server (DESIGN §6), which also writes
// reminders in that language and those formats. For each account this browser remembers the
// settings it last agreed with the server. Nothing changed here since (or a new device that
// never agreed): the server's copy wins, so a device signed in for the first time looks the
// way the person set Pillbox up elsewhere. Something changed here: it is sent.
import { useEffect, useRef, useState } from 'react';
import { getServerSettings, saveSharedSettings, type SharedSettings } from '../api/settings';
import { useAuth } from '../auth/AuthContext';
import { sanitizeSettings, type AppSettings } from '../settings/appSettings';
import { useAppSettings } from '../settings/SettingsContext';
import { useBackgroundRequestsAllowed } from './backgroundRequests';

const AGREED_KEY = 'pillbox_synced_settings';
/** Where earlier versions kept what they had sent: language, date and time formats, no theme. */
const EARLIER_KEY = 'pillbox_reminder_words';

function shared(settings: AppSettings): SharedSettings {
  const { language, dateFormat, timeFormat, theme } = settings;
  return { language, dateFormat, timeFormat, theme };
}

function signature(s: SharedSettings): string {
  return `${s.language}|${s.dateFormat}|${s.timeFormat}|${s.theme}`;
}

function agreedFor(userId: string): string | null {
  try {
    return localStorage.getItem(`${AGREED_KEY}:${userId}`);
  } catch {
    return null;
  }
}

/**
 * A browser that earlier versions kept in step (they never sent the theme): its language and
 * formats are the server's already, and its theme is a choice made here, so it is sent.
 */
function upgradedFrom(userId: string, local: SharedSettings): boolean {
  try {
    const earlier = localStorage.getItem(`${EARLIER_KEY}:${userId}`);
    localStorage.removeItem(`${EARLIER_KEY}:${userId}`);
    return earlier === `${local.language}|${local.dateFormat}|${local.timeFormat}`;
  } catch {
    return false;
  }
}

function agree(userId: string, settings: SharedSettings): void {
  try {
    localStorage.setItem(`${AGREED_KEY}:${userId}`, signature(settings));
  } catch {
    // Without storage the server's copy is read again next time; harmless.
  }
}

/**
 * At sign-in or start-up: answers the server's settings when this browser should take them,
 * or null (nothing to take, local changes sent instead, or the server out of reach).
 * Never rejects.
 */
export async function syncAtStart(userId: string, local: SharedSettings): Promise<SharedSettings | null> {
  const agreed = agreedFor(userId);
  try {
    if ((agreed !== null && agreed !== signature(local)) || (agreed === null && upgradedFrom(userId, local))) {
      await saveSharedSettings(local);
      agree(userId, local);
      return null;
    }
    const server = shared(sanitizeSettings({ ...local, ...(await getServerSettings()) }));
    agree(userId, server);
    return signature(server) === signature(local) ? null : server;
  } catch {
    // Offline or refused: tried again on the next start.
    return null;
  }
}

/** After a change in this browser: sends it when it differs from what was agreed. Never rejects. */
export async function sendIfChanged(userId: string, local: SharedSettings): Promise<void> {
  const agreed = agreedFor(userId);
  // Never agreed (the server was out of reach at start): the next start reads it first.
  if (agreed === null || agreed === signature(local)) return;
  try {
    await saveSharedSettings(local);
    agree(userId, local);
  } catch {
    // Sent again on the next change or start.
  }
}

/** Keeps this browser's appearance settings and the server's copy in step while signed in. */
export function useServerSettingsSync(): void {
  const { user } = useAuth();
  const { settings, updateSettings } = useAppSettings();
  const userId = user ? String(user.id) : null;
  const { language, dateFormat, timeFormat, theme } = settings;
  const latest = useRef<SharedSettings>({ language, dateFormat, timeFormat, theme });
  const [startedFor, setStartedFor] = useState<string | null>(null);
  // At a start, once the first screen is painted (the screen draws in this browser's settings).
  const allowed = useBackgroundRequestsAllowed();

  useEffect(() => {
    latest.current = { language, dateFormat, timeFormat, theme };
  });

  useEffect(() => {
    if (userId === null || !allowed) return;
    let live = true;
    const asked = latest.current;
    void syncAtStart(userId, asked).then((server) => {
      if (!live) return;
      // A change made here while the server's answer was on its way is the person's latest
      // word: it stays, and goes to the server as any change here does (below).
      if (server && signature(latest.current) === signature(asked)) updateSettings(server);
      setStartedFor(userId);
    });
    return () => {
      live = false;
    };
  }, [userId, allowed, updateSettings]);

  useEffect(() => {
    if (userId === null || startedFor !== userId) return;
    void sendIfChanged(userId, { language, dateFormat, timeFormat, theme });
  }, [userId, startedFor, language, dateFormat, timeFormat, theme]);
}

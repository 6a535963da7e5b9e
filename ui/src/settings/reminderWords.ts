// Reminders are written by the server: push notifications and e-mails speak the person's
// language and show times in their date and time formats. Those are browser settings
// (spec §3 "Local app settings"), so the server keeps a copy, sent from here whenever this
// browser's choice differs from what it last sent for this account. A browser still on the
// defaults that never sent anything leaves the server alone, so a new device does not undo
// a language chosen on another one.
import { useEffect } from 'react';
import { setReminderWords, type ReminderWords } from '../api/settings';
import { useAuth } from '../auth/AuthContext';
import { DEFAULT_SETTINGS } from './appSettings';
import { useAppSettings } from './SettingsContext';

const SENT_KEY = 'pillbox_reminder_words';

function signature(words: ReminderWords): string {
  return `${words.language}|${words.dateFormat}|${words.timeFormat}`;
}

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Without storage the settings are sent again next time; harmless.
  }
}

const running = new Map<string, Promise<void>>();

/** Sends the reminder language and formats when they changed; never rejects. */
export function syncReminderWords(userId: string, words: ReminderWords): Promise<void> {
  const key = `${SENT_KEY}:${userId}`;
  const wanted = signature(words);
  const sent = read(key);
  if (sent === wanted) return Promise.resolve();
  if (sent === null && wanted === signature(DEFAULT_SETTINGS)) {
    write(key, wanted);
    return Promise.resolve();
  }
  const run = `${key}:${wanted}`;
  const pending = running.get(run);
  if (pending) return pending;
  const send = (async () => {
    try {
      await setReminderWords(words);
      write(key, wanted);
    } catch {
      // Offline or refused: tried again on the next visit or change.
    } finally {
      running.delete(run);
    }
  })();
  running.set(run, send);
  return send;
}

/** Keeps the server's reminder language and formats in step while someone is signed in. */
export function useReminderWordsSync(): void {
  const { user } = useAuth();
  const { settings } = useAppSettings();
  const userId = user ? String(user.id) : null;
  const { language, dateFormat, timeFormat } = settings;
  useEffect(() => {
    if (userId === null) return;
    void syncReminderWords(userId, { language, dateFormat, timeFormat });
  }, [userId, language, dateFormat, timeFormat]);
}

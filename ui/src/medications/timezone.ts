// The server keeps one time zone per person and starts everyone on "UTC". Schedules, "today"
// and date filters depend on it, so the first time a person opens the medication screens in
// a browser whose zone differs, that zone is saved (once per person and browser: a zone
// chosen later in Settings is left alone).
import { useEffect, useState } from 'react';
import { getServerTimezone, setServerTimezone } from '../api/settings';
import { useAuth } from '../auth/AuthContext';
import { browserTimeZone } from './format';

const DONE_KEY = 'pillbox_timezone_checked';

function doneFor(userId: string): boolean {
  try {
    return localStorage.getItem(`${DONE_KEY}:${userId}`) === '1';
  } catch {
    return false;
  }
}

function markDone(userId: string): void {
  try {
    localStorage.setItem(`${DONE_KEY}:${userId}`, '1');
  } catch {
    // Without storage the check simply runs again next time.
  }
}

function isUtc(zone: string): boolean {
  return ['UTC', 'Etc/UTC', 'Etc/GMT', 'GMT', 'Etc/Universal', 'Universal', 'Etc/Zulu', 'Zulu'].includes(zone);
}

const running = new Map<string, Promise<void>>();

/** Saves the browser's zone when the server still has "UTC"; never rejects. */
export function syncServerTimezone(userId: string): Promise<void> {
  if (doneFor(userId)) return Promise.resolve();
  const pending = running.get(userId);
  if (pending) return pending;
  const check = (async () => {
    try {
      const zone = browserTimeZone();
      if (zone && !isUtc(zone) && (await getServerTimezone()) === 'UTC') {
        await setServerTimezone(zone);
      }
      markDone(userId);
    } catch {
      // Offline or refused: try again on the next visit.
    } finally {
      running.delete(userId);
    }
  })();
  running.set(userId, check);
  return check;
}

/** True once the time zone check is done (at once when it was done before). */
export function useServerTimezone(): boolean {
  const { user } = useAuth();
  const userId = user ? String(user.id) : null;
  const [checkedFor, setCheckedFor] = useState<string | null>(() =>
    userId !== null && doneFor(userId) ? userId : null,
  );
  useEffect(() => {
    if (userId === null || checkedFor === userId) return;
    let live = true;
    void syncServerTimezone(userId).then(() => {
      if (live) setCheckedFor(userId);
    });
    return () => {
      live = false;
    };
  }, [userId, checkedFor]);
  return userId === null || checkedFor === userId;
}

// The server keeps one time zone per person: reminders, "today" and date filters follow it.
// It changes only when the person says so, in Settings or by answering the question this
// module asks when the browser's zone differs from the stored one. Silently taking the zone
// of whichever browser signed in last moved a traveller's reminders without a word.
import { useCallback, useState } from 'react';
import { useAuth } from '../auth/AuthContext';
import { useSaveTimeZone, useTimeZoneQuery } from '../queries/account';
import { useBackgroundRequestsAllowed } from '../queries/backgroundRequests';
import { browserTimeZone } from './format';
import { currentZoneName } from './zoneNames';

// --- The question. -----------------------------------------------------------------------------

const UTC_NAMES = ['UTC', 'Etc/UTC', 'Etc/GMT', 'GMT', 'Etc/Universal', 'Universal', 'Etc/Zulu', 'Zulu'];

/** Two names for the same zone count as the same (UTC has several; Asia/Calcutta is Asia/Kolkata). */
export function sameZone(a: string, b: string): boolean {
  return currentZoneName(a) === currentZoneName(b) || (UTC_NAMES.includes(a) && UTC_NAMES.includes(b));
}

const DECLINED_KEY = 'pillbox_timezone_declined';

function declinedFor(userId: string): string | null {
  try {
    return localStorage.getItem(`${DECLINED_KEY}:${userId}`);
  } catch {
    return null;
  }
}

function pairOf(question: ZoneQuestion): string {
  return `${question.stored}|${question.browser}`;
}

export interface ZoneQuestion {
  /** The zone the server uses now. */
  stored: string;
  /** This browser's zone. */
  browser: string;
}

/** Whether to ask: the zones differ and the person has not said "keep" for this pair here. */
export function zoneQuestion(userId: string, stored: string | null): ZoneQuestion | null {
  const browser = browserTimeZone();
  if (!browser || stored === null || sameZone(stored, browser)) return null;
  const question = { stored, browser };
  return declinedFor(userId) === pairOf(question) ? null : question;
}

/** "Keep my zone": not asked again in this browser until one of the two zones changes. */
export function declineZone(userId: string, question: ZoneQuestion): void {
  try {
    localStorage.setItem(`${DECLINED_KEY}:${userId}`, pairOf(question));
  } catch {
    // Without storage the question comes back next time; harmless.
  }
}

export interface ZonePrompt {
  question: ZoneQuestion | null;
  busy: boolean;
  failed: boolean;
  accept: () => Promise<void>;
  decline: () => void;
}

/** The question for the signed-in person, asked once per page load (and after a change). */
export function useZonePrompt(): ZonePrompt {
  const { user } = useAuth();
  const userId = user ? String(user.id) : null;
  // Offline or refused: no zone, so nothing to ask about now.
  // Asked once a start's first screen is painted: the question can wait that long.
  const stored = useTimeZoneQuery({ enabled: useBackgroundRequestsAllowed() }).data ?? null;
  // The pair answered on this page (accepted, or kept); the server's next answer decides then.
  const [answered, setAnswered] = useState<string | null>(null);
  const saveTimeZone = useSaveTimeZone();
  const busy = saveTimeZone.isPending;
  const [failed, setFailed] = useState(false);
  const found = userId === null ? null : zoneQuestion(userId, stored);
  const question = found && pairOf(found) !== answered ? found : null;

  const accept = useCallback(async () => {
    if (!question) return;
    setFailed(false);
    try {
      await saveTimeZone.mutateAsync(question.browser);
      setAnswered(pairOf(question));
    } catch {
      setFailed(true);
    }
  }, [question, saveTimeZone]);

  const decline = useCallback(() => {
    if (question && userId !== null) declineZone(userId, question);
    if (question) setAnswered(pairOf(question));
  }, [question, userId]);

  return { question, busy, failed, accept, decline };
}

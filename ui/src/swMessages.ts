// What the service worker reads from a push and says back, kept free of worker APIs so that
// unit tests can run it. The outcome texts follow the app's language, which the page tells
// the worker (the worker has no settings of its own); the browser's language otherwise.
import type { components } from './api/schema';
import de from './i18n/sw/de.json';
import en from './i18n/sw/en.json';
import es from './i18n/sw/es.json';
import fr from './i18n/sw/fr.json';

export const APP_NAME = 'Pillbox';
export const DEFAULT_URL = '/today';

const TEXTS = { en, es, fr, de };
export type SwLanguage = keyof typeof TEXTS;
type Texts = typeof en;

/** The app's language when the page said it, else the browser's, else English. */
export function pickLanguage(stored: string | null, browser: string | undefined): SwLanguage {
  for (const candidate of [stored, browser?.slice(0, 2).toLowerCase()]) {
    if (candidate === 'en' || candidate === 'es' || candidate === 'fr' || candidate === 'de') return candidate;
  }
  return 'en';
}

export function textsOf(language: SwLanguage): Texts {
  return TEXTS[language];
}

/** The actions a reminder's notification may carry. */
export const REMINDER_ACTIONS = ['take', 'snooze', 'skip'] as const;
export type ReminderAction = (typeof REMINDER_ACTIONS)[number];

/** The Snooze action's length, in minutes. */
export const ACTION_SNOOZE_MINUTES = 10;

export interface ReminderPayload {
  kind: 'reminder';
  title: string;
  body: string;
  url?: string;
  takeUrl?: string;
  /** The action labels in the person's language (the server sends them). */
  takeLabel?: string;
  snoozeLabel?: string;
  skipLabel?: string;
  tag?: string;
  /** The take link's token: the actions post with it. */
  token?: string;
  actions: ReminderAction[];
  /** The person's sound and vibration preferences. */
  silent?: boolean;
  vibrate?: boolean;
}

/** A reminder handled elsewhere: its notifications (by tag) are withdrawn. */
export interface WithdrawPayload {
  kind: 'withdraw';
  tag: string;
  outcome: string;
}

export type PushPayload = ReminderPayload | WithdrawPayload;

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Reads a push message's text; anything that is not our JSON still becomes a notification. */
export function readPayload(text: string | null): PushPayload {
  if (text === null) return { kind: 'reminder', title: APP_NAME, body: '', actions: [] };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
    const fields = parsed as Record<string, unknown>;
    const tag = optionalString(fields.tag);
    if (fields.kind === 'withdraw' && tag) {
      return { kind: 'withdraw', tag, outcome: optionalString(fields.outcome) ?? '' };
    }
    const actions = Array.isArray(fields.actions)
      ? REMINDER_ACTIONS.filter((action) => (fields.actions as unknown[]).includes(action))
      : [];
    return {
      kind: 'reminder',
      title: optionalString(fields.title) ?? APP_NAME,
      body: typeof fields.body === 'string' ? fields.body : '',
      url: optionalString(fields.url),
      takeUrl: optionalString(fields.takeUrl),
      takeLabel: optionalString(fields.takeLabel),
      snoozeLabel: optionalString(fields.snoozeLabel),
      skipLabel: optionalString(fields.skipLabel),
      tag,
      token: optionalString(fields.token),
      actions,
      silent: fields.silent === true,
      vibrate: fields.vibrate !== false,
    };
  } catch {
    return { kind: 'reminder', title: APP_NAME, body: text, actions: [] };
  }
}

/**
 * The buttons of a reminder's notification. With a token: Take, Snooze (10 min) and Skip,
 * answered without opening a window, as many as the browser shows (Chrome shows two: Take
 * and Snooze; Skip is then on the take page a tap opens). Without a token (an older
 * server): Take opens the take page.
 */
export function actionButtons(
  payload: ReminderPayload,
  language: SwLanguage,
  maxActions: number = REMINDER_ACTIONS.length,
): Array<{ action: string; title: string }> {
  const texts = textsOf(language);
  if (payload.token && payload.actions.length > 0) {
    return payload.actions.slice(0, Math.max(maxActions, 1)).map((action) => ({
      action,
      title:
        action === 'take'
          ? (payload.takeLabel ?? texts.takeAction)
          : action === 'skip'
            ? (payload.skipLabel ?? texts.skipAction)
            : texts.snoozeAction,
    }));
  }
  return payload.takeUrl ? [{ action: 'take', title: payload.takeLabel ?? texts.takeAction }] : [];
}

/** What an action posts to /api/notifications/take/{token} (the document's TakeBody). */
export function actionBody(action: ReminderAction): components['schemas']['TakeBody'] {
  switch (action) {
    case 'snooze':
      return { status: 'snoozed', minutes: ACTION_SNOOZE_MINUTES };
    case 'skip':
      return { status: 'skipped' };
    default:
      return { status: 'taken' };
  }
}

function fill(text: string, values: Record<string, string>): string {
  return text.replace(/{{\s*(\w+)\s*}}/g, (whole, name: string) => values[name] ?? whole);
}

/** "14:30" (or "2:30 PM") in the language, in this device's zone. */
export function timeOfDay(instant: string, language: SwLanguage): string {
  const moment = new Date(instant);
  if (Number.isNaN(moment.getTime())) return instant;
  return new Intl.DateTimeFormat(language, { hour: '2-digit', minute: '2-digit' }).format(moment);
}

/** The short notice that replaces the reminder once an action went through. */
export function outcomeText(action: ReminderAction, language: SwLanguage, snoozedUntil: string | null): string {
  const texts = textsOf(language);
  if (action === 'snooze') return fill(texts.snoozed, { time: snoozedUntil ? timeOfDay(snoozedUntil, language) : '' });
  return action === 'skip' ? texts.skipped : texts.taken;
}

/** The notice of a reminder answered on another device (taken, skipped, snoozed, missed). */
export function withdrawnText(outcome: string, language: SwLanguage): string {
  const elsewhere = textsOf(language).elsewhere;
  switch (outcome) {
    case 'taken':
    case 'skipped':
    case 'snoozed':
    case 'missed':
    case 'corrected':
      return elsewhere[outcome];
    default:
      return elsewhere.other;
  }
}

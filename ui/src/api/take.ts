// Take links (/api/notifications/take/{token}): log the dose a reminder asked about without
// signing in. Possession of the link is the permission, so no session token is sent.
import { answer, api } from './http';
import { TAKE_PATH } from './paths';
import type { DoseStatus, DoseWarning } from './medicationTypes';
import { doseWarningOf } from './medications';
import type { components } from './schema';
import { languageOf, type Language } from '../settings/appSettings';

type TakeDetailsView = components['schemas']['TakeDetails'];

/** How the reminder was answered already; `status` is null when the entry is gone. */
export type TakeLogged = Required<components['schemas']['TakeLogged']>;

/**
 * SPEC §3 "Token notification details", plus whether the dose was logged already. The
 * document's optional and empty texts are null here: one "none" for the screen to test.
 */
export type TakeDetails = Omit<
  TakeDetailsView,
  'dosage' | 'dosage_unit' | 'message' | 'logged' | 'person_name' | 'language'
> & {
  dosage: string | null;
  dosage_unit: string | null;
  message: string | null;
  logged: TakeLogged | null;
  /** Whose dose it is (the account holder's name for their own). */
  person_name: string | null;
  /** The language the reminder was written in, when it is one the app speaks. */
  language: Language | null;
};

const textOrNull = (value: string | null | undefined): string | null => (value ? value : null);

function takeDetailsOf(view: TakeDetailsView): TakeDetails {
  return {
    ...view,
    dosage: textOrNull(view.dosage),
    dosage_unit: textOrNull(view.dosage_unit),
    message: textOrNull(view.message),
    logged: view.logged ? { status: view.logged.status ?? null, taken: view.logged.taken } : null,
    snoozed_until: textOrNull(view.snoozed_until),
    person_name: textOrNull(view.person_name),
    handled_by: textOrNull(view.handled_by),
    handled_at: textOrNull(view.handled_at),
    language: languageOf(view.language) ?? null,
  };
}

/** What a take link recorded: the entry the server wrote, and its stock warning. */
export interface TakeRecorded {
  status: DoseStatus;
  /** When it was logged (RFC 3339). */
  taken: string;
  warning: DoseWarning | null;
}

/** The snoozes a take link offers, in minutes. */
export const SNOOZE_MINUTES = [10, 30, 60] as const;
export type SnoozeMinutes = (typeof SNOOZE_MINUTES)[number];

const byToken = (token: string) => ({ params: { path: { token } } });

/** The reminder a take link points at. 404 (ApiError) for an unknown or expired token. */
export async function getTakeDetails(token: string, signal?: AbortSignal): Promise<TakeDetails> {
  return takeDetailsOf((await answer(api.GET(TAKE_PATH, { ...byToken(token), signal }))).data);
}

/**
 * Logs the reminder's dose with `status`; answers what was recorded, with the server's
 * warning when the stock could not follow. 409 (ApiError) when it was logged already.
 */
export async function logTakeDose(token: string, status: DoseStatus): Promise<TakeRecorded> {
  const { data } = await answer(api.POST(TAKE_PATH, { ...byToken(token), body: { status } }));
  if (!('status' in data)) throw new Error('The take link answered a snooze to a dose');
  return { status: data.status, taken: data.taken, warning: doseWarningOf(data) };
}

/** Sends the reminder again `minutes` later; answers when (RFC 3339). */
export async function snoozeTake(token: string, minutes: SnoozeMinutes): Promise<string> {
  const { data } = await answer(
    api.POST(TAKE_PATH, { ...byToken(token), body: { status: 'snoozed', minutes } }),
  );
  if (!('snoozed_until' in data)) throw new Error('The take link answered a dose to a snooze');
  return data.snoozed_until;
}

// Take links (/api/notifications/take/{token}): log the dose a reminder asked about without
// signing in. Possession of the link is the permission, so no session token is sent.
import { apiRequest, isJsonObject, type Json } from './client';
import { FormatError, dataOf, parseDoseWarning } from './medicationParse';
import { nonEmptyString } from './parse';
import { DOSE_STATUSES, type DoseStatus, type DoseWarning } from './medicationTypes';
import type { components } from './schema';
import { LANGUAGES, type Language } from '../settings/appSettings';

/** How the reminder was answered already; `status` is null when the entry is gone. */
export type TakeLogged = Required<components['schemas']['TakeLogged']>;

/** SPEC §3 "Token notification details", plus whether the dose was logged already. */
export interface TakeDetails {
  title: string;
  medication_name: string;
  quantity: number | null;
  dosage: string | null;
  dosage_unit: string | null;
  scheduled_time: string;
  message: string | null;
  logged: TakeLogged | null;
  /** When a snoozed reminder goes out again (RFC 3339); null unless it is snoozed. */
  snoozed_until: string | null;
  /** Whose dose it is (the account holder's name for their own). */
  person_name: string | null;
  /** Who logged it taken or skipped, and when: the account holder or a carer. */
  handled_by: string | null;
  handled_at: string | null;
  /** The language the reminder was written in (`en`, `es`, `fr`, `de`), when the server says. */
  language: Language | null;
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

function str(value: Json | undefined): string {
  return typeof value === 'string' ? value : '';
}

function parseLogged(value: Json | undefined): TakeLogged | null {
  if (!isJsonObject(value)) return null;
  return { status: DOSE_STATUSES.find((s) => s === value.status) ?? null, taken: str(value.taken) };
}

export function parseTakeDetails(value: Json | undefined): TakeDetails {
  if (!isJsonObject(value)) throw new FormatError('notification details');
  return {
    title: str(value.title),
    medication_name: str(value.medication_name),
    quantity: typeof value.quantity === 'number' && Number.isFinite(value.quantity) ? value.quantity : null,
    dosage: nonEmptyString(value.dosage),
    dosage_unit: nonEmptyString(value.dosage_unit),
    scheduled_time: str(value.scheduled_time),
    message: nonEmptyString(value.message),
    logged: parseLogged(value.logged),
    snoozed_until: nonEmptyString(value.snoozed_until),
    person_name: nonEmptyString(value.person_name),
    handled_by: nonEmptyString(value.handled_by),
    handled_at: nonEmptyString(value.handled_at),
    language: LANGUAGES.find((language) => language === value.language) ?? null,
  };
}

function takePath(token: string): string {
  return `/api/notifications/take/${encodeURIComponent(token)}`;
}

/** The reminder a take link points at. 404 (ApiError) for an unknown or expired token. */
export async function getTakeDetails(token: string, signal?: AbortSignal): Promise<TakeDetails> {
  const body = await apiRequest(takePath(token), { signal, anonymous: true });
  return parseTakeDetails(dataOf(body));
}

/**
 * Logs the reminder's dose with `status`; answers what was recorded, with the server's
 * warning when the stock could not follow. 409 (ApiError) when it was logged already.
 */
export async function logTakeDose(token: string, status: DoseStatus): Promise<TakeRecorded> {
  const body = await apiRequest(takePath(token), { method: 'POST', body: { status }, anonymous: true });
  const data = dataOf(body);
  if (!isJsonObject(data)) throw new FormatError('logged dose');
  return {
    status: DOSE_STATUSES.find((s) => s === data.status) ?? status,
    taken: str(data.taken),
    warning: parseDoseWarning(data),
  };
}

/** Sends the reminder again `minutes` later; answers when (RFC 3339). */
export async function snoozeTake(token: string, minutes: SnoozeMinutes): Promise<string> {
  const body = await apiRequest(takePath(token), {
    method: 'POST',
    body: { status: 'snoozed', minutes },
    anonymous: true,
  });
  const data = dataOf(body);
  const until = isJsonObject(data) ? nonEmptyString(data.snoozed_until) : null;
  if (until === null) throw new FormatError('snooze');
  return until;
}

// The private calendar feed (/api/calendar/feed): a secret address serving the next 14 days
// of doses to calendar apps. The address is shown once, when it is made.
import { apiRequest, isJsonObject } from './client';
import { FormatError, dataOf, strOrNull } from './medicationParse';

export interface FeedStatus {
  exists: boolean;
  /** When the current feed was made (RFC 3339); null without one. */
  created_at: string | null;
}

export interface NewFeed {
  url: string;
  created_at: string;
}

const FEED = '/api/calendar/feed';

export async function getFeedStatus(signal?: AbortSignal): Promise<FeedStatus> {
  const data = dataOf(await apiRequest(FEED, { signal }));
  if (!isJsonObject(data)) throw new FormatError('calendar feed');
  return { exists: data.exists === true, created_at: strOrNull(data.created_at) };
}

/** Makes a feed (a new one replaces the old address). */
export async function createFeed(): Promise<NewFeed> {
  const data = dataOf(await apiRequest(FEED, { method: 'POST' }));
  const url = isJsonObject(data) ? strOrNull(data.url) : null;
  if (!isJsonObject(data) || url === null) throw new FormatError('calendar feed');
  return { url, created_at: strOrNull(data.created_at) ?? '' };
}

export async function revokeFeed(): Promise<void> {
  await apiRequest(FEED, { method: 'DELETE' });
}

// The private calendar feed (/api/calendar/feed): a secret address serving the next 14 days
// of doses to calendar apps. The address is shown once, when it is made.
import { answer, api, callerHeaders, done } from './http';
import type { components } from './schema';

export type FeedStatus = components['schemas']['FeedStatus'];
export type NewFeed = components['schemas']['NewFeed'];

export async function getFeedStatus(signal?: AbortSignal): Promise<FeedStatus> {
  return (await answer(api.GET('/api/calendar/feed', { headers: callerHeaders(), signal }))).data;
}

/** Makes a feed (a new one replaces the old address). */
export async function createFeed(): Promise<NewFeed> {
  return (await answer(api.POST('/api/calendar/feed', { headers: callerHeaders() }))).data;
}

export async function revokeFeed(): Promise<void> {
  await done(api.DELETE('/api/calendar/feed', { headers: callerHeaders() }));
}

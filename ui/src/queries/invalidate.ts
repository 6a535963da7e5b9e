// What a change makes stale. Each function names a kind of change and lists exactly the
// views that show its effects; mutations call one of them when they succeed. The refetches
// are not awaited: a form says "Saved" when the server has it, not when the screens caught up.
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { queryKeys } from './keys';

function invalidate(client: QueryClient, keys: readonly QueryKey[]): void {
  for (const queryKey of keys) void client.invalidateQueries({ queryKey });
}

/**
 * A dose logged, its status switched or its entry deleted: the stock (list, inventory, ledger),
 * today's states, the history and adherence, the report, and the reminders it answered.
 */
export function doseRecorded(client: QueryClient): void {
  invalidate(client, [
    queryKeys.medications,
    queryKeys.today,
    queryKeys.history,
    queryKeys.adherence,
    queryKeys.report,
    queryKeys.scheduledNotifications,
  ]);
}

/**
 * A medication added, edited or deleted: everything else that shows it, its doses or
 * reminders. The list itself takes the server's answer (the caller puts it there).
 */
export function medicationChanged(client: QueryClient, id?: number): void {
  invalidate(client, [
    ...(id === undefined ? [] : [[...queryKeys.medications, id]]),
    queryKeys.today,
    queryKeys.history,
    queryKeys.adherence,
    queryKeys.report,
    queryKeys.notifications,
    queryKeys.preferences,
  ]);
}

/**
 * A medication's stock described or adjusted: its ledger, the report, low-stock reminders.
 * The stock itself takes the server's answer (the caller puts it in the list and inventory).
 */
export function stockChanged(client: QueryClient, id: number): void {
  invalidate(client, [queryKeys.ledger(id), queryKeys.report, queryKeys.scheduledNotifications]);
}

/** A stock change was refused: the stock may have moved elsewhere, so all of it is asked again. */
export function stockRefused(client: QueryClient, id: number): void {
  invalidate(client, [queryKeys.medicationList, [...queryKeys.medications, id], queryKeys.report]);
}

/**
 * Reminder preferences or notification settings saved: the scheduled reminders, and each
 * medication's delivery warning (worked out from the methods that are on).
 */
export function remindersChanged(client: QueryClient): void {
  invalidate(client, [
    queryKeys.preferences,
    queryKeys.notificationSettings,
    queryKeys.scheduledNotifications,
    queryKeys.medicationList,
    queryKeys.today,
  ]);
}

/**
 * A channel added, switched, renamed or deleted: the channels, and what reminder settings
 * show of them (a deleted channel leaves every method list; whether reminders can arrive).
 */
export function channelsChanged(client: QueryClient): void {
  invalidate(client, [
    queryKeys.channels,
    queryKeys.preferences,
    queryKeys.scheduledNotifications,
    queryKeys.medicationList,
    queryKeys.today,
  ]);
}

/** This device subscribed to push or left it: whether each medication's reminders can arrive. */
export function pushDevicesChanged(client: QueryClient): void {
  invalidate(client, [queryKeys.medications, queryKeys.today]);
}

/** The person's time zone changed, or data was imported or deleted by retention: all of it. */
export function everythingChanged(client: QueryClient): void {
  void client.invalidateQueries();
}

/**
 * A person added or a carer's access begun or ended: the people, their carers, and what is
 * shown of their medications (Today includes the people one cares for).
 */
export function peopleChanged(client: QueryClient): void {
  invalidate(client, [queryKeys.people, queryKeys.medicationList, queryKeys.today, queryKeys.history, queryKeys.adherence]);
}

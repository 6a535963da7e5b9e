// The page a reminder's link opens, without signing in: the reminder, and logging its dose.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DoseStatus } from '../api/medicationTypes';
import { getTakeDetails, logTakeDose, snoozeTake, type SnoozeMinutes } from '../api/take';
import { doseRecorded } from './invalidate';
import { queryKeys } from './keys';

export function useTakeDetailsQuery(token: string) {
  return useQuery({ queryKey: queryKeys.take(token), queryFn: ({ signal }) => getTakeDetails(token, signal) });
}

/**
 * Logged from the link: a person signed in on this page sees it on Today and in the history.
 * The link's own details stay as they are, so the page keeps saying what was just logged.
 */
export function useLogTakeDose(token: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (status: DoseStatus) => logTakeDose(token, status),
    onSuccess: () => doseRecorded(client),
  });
}

/** Snoozed from the link: the Scheduled list of a person signed in here shows the new time. */
export function useSnoozeTake(token: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (minutes: SnoozeMinutes) => snoozeTake(token, minutes),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.notifications }),
  });
}

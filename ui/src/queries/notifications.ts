// Reminders: the scheduled list, the delivery history, and the preferences that shape them.
import { queryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  getGlobalPreferences,
  getMedicationPreferences,
  getNotificationSettings,
  saveGlobalPreferences,
  saveMedicationPreferences,
  saveNotificationSettings,
  type GlobalPreferencesInput,
  type MedicationPreferencesInput,
  type NotificationSettings,
} from '../api/notificationPrefs';
import {
  cancelNotification,
  listDeliveries,
  listScheduledNotifications,
  sendTestNotification,
  type DeliveryMethod,
  type Delivery,
  type DeliveryPage,
} from '../api/notifications';
import { withCustomMessages } from './customMessages';
import { remindersChanged } from './invalidate';
import { queryKeys } from './keys';

export function useScheduledNotificationsQuery() {
  return useQuery({
    queryKey: queryKeys.scheduledNotifications,
    queryFn: async ({ signal }) => withCustomMessages(await listScheduledNotifications(signal), signal),
  });
}

export function useCancelNotification() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => cancelNotification(id),
    // Refused or not, the list shows what the server has now (it may have been sent meanwhile).
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.scheduledNotifications }),
  });
}

/**
 * The pages loaded so far as one list, leaving out rows already shown (new deliveries shift
 * the offsets); the total is the newest page's.
 */
export function mergeDeliveryPages(pages: readonly DeliveryPage[]): DeliveryPage {
  const known = new Set<number>();
  const deliveries: Delivery[] = [];
  for (const delivery of pages.flatMap((page) => page.deliveries)) {
    if (known.has(delivery.id)) continue;
    known.add(delivery.id);
    deliveries.push(delivery);
  }
  return { deliveries, total: pages.at(-1)?.total ?? 0 };
}

/** The delivery history, a page at a time from the newest; each next page starts after the rows shown. */
export function useDeliveriesQuery() {
  return useInfiniteQuery({
    queryKey: queryKeys.deliveries,
    queryFn: ({ pageParam, signal }) => listDeliveries({ offset: pageParam }, signal),
    initialPageParam: 0,
    getNextPageParam: (_last: DeliveryPage, pages: DeliveryPage[]) => mergeDeliveryPages(pages).deliveries.length,
  });
}

/** Also read on demand (the test card asks for the current methods when it sends). */
export const globalPreferencesQuery = queryOptions({
  queryKey: queryKeys.globalPreferences,
  queryFn: ({ signal }) => getGlobalPreferences(signal),
});

export function useGlobalPreferencesQuery() {
  return useQuery(globalPreferencesQuery);
}

/** A test notification: sent or not, its attempts join the delivery history. */
export function useSendTestNotification() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (methods: readonly DeliveryMethod[]) => sendTestNotification(methods),
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.deliveries }),
  });
}

export function useMedicationPreferencesQuery(medicationId: number) {
  return useQuery({
    queryKey: queryKeys.medicationPreferences(medicationId),
    queryFn: ({ signal }) => getMedicationPreferences(medicationId, signal),
  });
}

export function useNotificationSettingsQuery() {
  return useQuery({
    queryKey: queryKeys.notificationSettings,
    queryFn: ({ signal }) => getNotificationSettings(signal),
  });
}

export function useSaveGlobalPreferences() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (changes: GlobalPreferencesInput) => saveGlobalPreferences(changes),
    onSuccess: (saved) => {
      client.setQueryData(queryKeys.globalPreferences, saved);
      remindersChanged(client);
    },
  });
}

export function useSaveMedicationPreferences(medicationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: MedicationPreferencesInput) => saveMedicationPreferences(medicationId, input),
    onSuccess: (saved) => {
      client.setQueryData(queryKeys.medicationPreferences(medicationId), saved);
      remindersChanged(client);
    },
  });
}

export function useSaveNotificationSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (settings: NotificationSettings) => saveNotificationSettings(settings),
    onSuccess: (saved) => {
      client.setQueryData(queryKeys.notificationSettings, saved);
      remindersChanged(client);
    },
  });
}

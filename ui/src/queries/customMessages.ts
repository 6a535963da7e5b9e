// A dose reminder says its medication's custom message when it has none of its own (the
// server sends it so), but the scheduled list answers only the reminder's own message.
import { getMedicationPreferences } from '../api/notificationPrefs';
import type { NotificationList } from '../api/notifications';

/** The list with each dose reminder's message filled in from its medication's preferences. */
export async function withCustomMessages(list: NotificationList, signal?: AbortSignal): Promise<NotificationList> {
  const ids = [
    ...new Set(
      list.notifications
        .filter((n) => n.kind === 'dose' && n.message === null && n.medication_id !== null)
        .map((n) => n.medication_id as number),
    ),
  ];
  const found = await Promise.all(
    ids.map((id) =>
      getMedicationPreferences(id, signal).then(
        (prefs) => [id, prefs.uses_defaults ? null : prefs.custom_message] as const,
        // Without its preferences the reminder is still worth listing.
        () => [id, null] as const,
      ),
    ),
  );
  const messages = new Map(found);
  return {
    ...list,
    notifications: list.notifications.map((n) =>
      n.kind === 'dose' && n.message === null && n.medication_id !== null && messages.get(n.medication_id)
        ? { ...n, message: messages.get(n.medication_id) ?? null }
        : n,
    ),
  };
}

// Error texts of the preferences dialog and the Settings page's Notifications section
// (SPEC §8): the screen's own text, followed by the server's reason when it gave one.
import type { TFunction } from 'i18next';
import { ApiError, NETWORK_ERROR_MESSAGE, isJsonObject } from '../../api/client';
import i18n from '../../i18n';
import { translateServerMessage } from '../../i18n/messages';

/** The server's messages for these calls that we translate (the rest are shown as sent). */
const SERVER_KEYS: Record<string, string> = {
  'Choose at least one delivery method': 'server.chooseMethod',
  'Delivery methods must be push or email': 'server.unknownMethod',
  'Reminder lead must be between 0 and 1440 minutes': 'server.leadRange',
  'Message must be at most 500 characters': 'server.messageTooLong',
  'Medication not found': 'server.medicationNotFound',
};

/** Why the call failed, in words for people, or null when there is nothing beyond "it failed". */
function reasonOf(t: TFunction, error: unknown): string | null {
  const common = i18n.getFixedT(null, 'translation');
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApiError) {
      const body = current.body;
      const message = isJsonObject(body) && typeof body.message === 'string' ? body.message.trim() : '';
      if (message === '') return null;
      const key = SERVER_KEYS[message];
      return key ? t(key) : translateServerMessage(common, message);
    }
    if (current.message === NETWORK_ERROR_MESSAGE) return common('errors.network');
    current = current.cause;
  }
  return null;
}

/** E.g. "Failed to save preferences: Choose at least one delivery method". `t` is notifyPrefs'. */
export function prefsErrorText(t: TFunction, error: unknown, fallbackKey: string): string {
  const text = t(fallbackKey);
  const reason = reasonOf(t, error);
  return reason === null || reason === text ? text : t('errors.withReason', { error: text, reason });
}

// Error texts of the preferences dialog and the Settings page's Notifications section
// (SPEC §8): the screen's own text, followed by the server's reason when it gave one.
import type { TFunction } from '../../i18n';
import { ApiError, NETWORK_ERROR_MESSAGE } from '../../api/client';
import i18n from '../../i18n';
import { serverErrorText, translateCode, type CodeKeys } from '../../i18n/messages';

/** The codes of these calls translated in the `notifyPrefs` namespace (the rest as sent). */
export const PREFS_CODE_KEYS: CodeKeys = {
  medication_not_found: 'server.medicationNotFound',
  delivery_method_required: 'server.chooseMethod',
  delivery_method_unknown: 'server.unknownMethod',
  lead_out_of_range: 'server.leadRange',
  message_too_long: 'server.messageTooLong',
  channel_not_found: 'channels.errors.notFound',
  channel_invalid: 'channels.errors.invalid',
  channel_address_not_allowed: 'channels.errors.addressNotAllowed',
  telegram_not_configured: 'channels.errors.telegramNotConfigured',
};

/** Why the call failed, in words for people, or null when there is nothing beyond "it failed". */
function reasonOf(t: TFunction, error: unknown): string | null {
  const common = i18n.getFixedT(null, 'translation');
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApiError) {
      const text = translateCode(t, current, PREFS_CODE_KEYS) ?? serverErrorText(common, current);
      return text === null || text.trim() === '' ? null : text.trim();
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

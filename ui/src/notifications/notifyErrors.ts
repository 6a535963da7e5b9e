// Error texts of the reminder screens (SPEC §8 "Token link", "Notifications"): our translation
// of the refusal's code, the server's own 4xx message otherwise, else the screen's fallback. A 5xx says nothing a person can act on, so it gets the fallback too.
import type { TFunction } from '../i18n';
import { ApiError, NETWORK_ERROR_MESSAGE, isJsonObject } from '../api/client';
import i18n from '../i18n';
import { serverErrorText, serverMessageOf, translateCode, type CodeKeys } from '../i18n/messages';
import { PushError } from '../push/pushSubscription';

/** The reminder area's codes, translated in the `notify` namespace. */
export const NOTIFY_CODE_KEYS: CodeKeys = {
  invalid_token: 'errors.invalidToken',
  dose_already_logged: 'errors.alreadyLogged',
  notification_not_found: 'errors.notificationNotFound',
  push_service_not_allowed: 'errors.pushServiceNotAllowed',
  invalid_subscription: 'errors.invalidSubscription',
  subscription_taken: 'errors.subscriptionTaken',
};

/**
 * What a failure says in words of its own: a push service error, a server message, the
 * network error. Null when it says nothing a person can use (a 5xx, an unknown error).
 */
export function notifyErrorDetail(t: TFunction, error: unknown): string | null {
  const common = i18n.getFixedT(null, 'translation');
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof PushError) return t(`push.errors.${current.problem}`);
    if (current instanceof ApiError) {
      if (current.status >= 500) return null;
      return translateCode(t, current, NOTIFY_CODE_KEYS) ?? serverErrorText(common, current);
    }
    if (current.message === NETWORK_ERROR_MESSAGE) return common('errors.network');
    current = current.cause;
  }
  return null;
}

/** The text for a failed call; `t` is the `notify` namespace's. */
export function notifyErrorText(t: TFunction, error: unknown, fallbackKey: string): string {
  return notifyErrorDetail(t, error) ?? t(fallbackKey);
}

/** True for a delivery answer whose list of channel results is empty: nothing was tried. */
function triedNoChannel(error: ApiError): boolean {
  const data = isJsonObject(error.body) ? error.body.data : null;
  return isJsonObject(data) && Array.isArray(data.results) && data.results.length === 0;
}

/**
 * Why a test (or send-now) delivered nothing. The server answers `delivery_failed` (409 when
 * no channel could be tried, 502 when a push service or the mail server failed) with its
 * reasons, which a person can act on, unlike other server errors.
 */
export function deliveryFailureDetail(t: TFunction, error: unknown): string | null {
  if (error instanceof ApiError && error.code === 'delivery_failed') {
    if (triedNoChannel(error)) return t('test.noneSent', { reasons: t('test.noMethod') });
    // The message names each channel's failure.
    const message = serverMessageOf(error);
    if (message !== null) return message;
  }
  return notifyErrorDetail(t, error);
}

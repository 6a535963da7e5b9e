// Error texts of the reminder screens (SPEC §8 "Token link", "Notifications"): our translation
// of a server message we know, the server's own 4xx message otherwise, else the screen's
// fallback. A 5xx says nothing a person can act on, so it gets the fallback too.
import type { TFunction } from 'i18next';
import { ApiError, NETWORK_ERROR_MESSAGE } from '../api/client';
import i18n from '../i18n';
import { serverMessageOf, translateServerMessage } from '../i18n/messages';
import { PushError } from '../push/pushSubscription';

const SERVER_KEYS: Record<string, string> = {
  'Invalid or expired token': 'errors.invalidToken',
  'This dose was already logged': 'errors.alreadyLogged',
  'Notification not found': 'errors.notificationNotFound',
  'This push service is not allowed': 'errors.pushServiceNotAllowed',
  'Invalid push subscription': 'errors.invalidSubscription',
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
      const message = serverMessageOf(current);
      if (message === null || current.status >= 500) return null;
      const key = SERVER_KEYS[message];
      return key ? t(key) : translateServerMessage(common, message);
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

const NONE_SENT = /^No notification could be sent: (.+)$/;

/**
 * Why a test (or send-now) delivered nothing. The server answers 502 with its reasons,
 * which a person can act on ("no delivery method was chosen"), unlike other 5xx answers.
 */
export function deliveryFailureDetail(t: TFunction, error: unknown): string | null {
  if (error instanceof ApiError && error.status === 502) {
    const message = serverMessageOf(error);
    const match = message === null ? null : NONE_SENT.exec(message);
    if (match) {
      const reasons = match[1] === 'no delivery method was chosen' ? t('test.noMethod') : (match[1] ?? '');
      return t('test.noneSent', { reasons });
    }
    if (message !== null) return message;
  }
  return notifyErrorDetail(t, error);
}

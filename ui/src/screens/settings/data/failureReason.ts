import { ApiError, NETWORK_ERROR_MESSAGE } from '../../../api/client';
import i18n from '../../../i18n';
import { serverErrorText } from '../../../i18n/messages';

/**
 * Why a call failed, for people: the server's message (translated by its code when the app
 * knows it), or the network error; null when there is nothing more than "it failed".
 */
export function failureReason(error: unknown): string | null {
  const common = i18n.getFixedT(null, 'translation');
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApiError) return serverErrorText(common, current);
    if (current.message === NETWORK_ERROR_MESSAGE) return common('errors.network');
    current = current.cause;
  }
  return null;
}

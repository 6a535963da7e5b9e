import type { TFunction } from '../i18n';
import { errorText } from '../i18n/messages';
import { PasskeyCeremonyError } from './passkeyCeremonyError';

/** What to tell when a passkey ceremony failed: the browser's reason, or the server's refusal. */
export function passkeyErrorText(t: TFunction, error: unknown, fallbackKey: string): string {
  if (error instanceof PasskeyCeremonyError) return t(`passkeys.browser.${error.problem}`);
  return errorText(t, error, fallbackKey);
}

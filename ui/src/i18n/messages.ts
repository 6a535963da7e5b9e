import type { TFunction } from 'i18next';
import { ApiError, NETWORK_ERROR_MESSAGE, isJsonObject } from '../api/client';

/**
 * The server answers in English. The messages people meet in the account screens are
 * translated here; anything else is shown as the server wrote it.
 */
const SERVER_MESSAGE_KEYS: Record<string, string> = {
  'Invalid email or password': 'server.invalidCredentials',
  'Email and password are required': 'server.credentialsRequired',
  'Two-factor authentication code required': 'server.codeRequired',
  'Invalid verification code': 'server.invalidCode',
  'Please enter the verification code': 'server.enterCode',
  'Please verify your email address before signing in': 'server.verifyFirst',
  'Too many attempts. Please try again later.': 'server.tooManyAttempts',
  'Password must be at least 6 characters long': 'server.passwordTooShort',
  'Password must be at most 1024 characters long': 'server.passwordTooLong',
  'Please enter a valid email address': 'server.invalidEmail',
  'Email is required': 'server.emailRequired',
  'Registration is closed': 'server.registrationClosed',
  'An account with this email already exists': 'server.accountExists',
  'This sign-in method is not enabled': 'server.methodNotEnabled',
  'The code could not be sent by email. Please try again later.': 'server.codeNotSent',
  'Email is not configured on this server': 'server.emailNotConfigured',
  'Invalid or expired verification link': 'server.invalidLink',
  'Current password is incorrect': 'server.wrongCurrentPassword',
  'Please enter your password': 'server.enterPassword',
  'Password is incorrect': 'server.wrongPassword',
  'First name must be at most 100 characters': 'server.firstNameTooLong',
  'Last name must be at most 100 characters': 'server.lastNameTooLong',
  'Please enter a backup code': 'server.enterBackupCode',
  'Invalid backup code': 'server.invalidBackupCode',
  'Email two-factor authentication is already enabled': 'server.emailAlreadyEnabled',
  'Authenticator app two-factor authentication is already enabled': 'server.totpAlreadyEnabled',
  'Start the authenticator app setup first': 'server.startTotpFirst',
  'Enable two-factor authentication first': 'server.enableFirst',
  'Authentication required': 'server.sessionEnded',
  'Invalid or expired session': 'server.sessionEnded',
  'Internal server error': 'server.internal',
};

export function translateServerMessage(t: TFunction, message: string): string {
  const key = SERVER_MESSAGE_KEYS[message];
  return key ? t(key) : message;
}

/** The message the server put in an error answer, if it gave one. */
/** The message a failed call's body carries, if any. */
export function serverMessageOf(error: ApiError): string | null {
  return isJsonObject(error.body) && typeof error.body.message === 'string' && error.body.message !== ''
    ? error.body.message
    : null;
}

/**
 * The text to show for a failed call: the server's message when it sent one (spec §8
 * "The server message is shown when present"), the network error, else the screen's own
 * fallback. Errors wrapping another (`cause`) are looked through.
 */
export function errorText(
  t: TFunction,
  error: unknown,
  fallbackKey: string,
  options?: Record<string, string>,
): string {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApiError) {
      const message = serverMessageOf(current);
      if (message !== null) return translateServerMessage(t, message);
      break;
    }
    if (current.message === NETWORK_ERROR_MESSAGE) return t('errors.network');
    current = current.cause;
  }
  return t(fallbackKey, options);
}

import type { TFunction } from '.';
import { ApiError, NETWORK_ERROR_MESSAGE, isJsonObject, type ErrorCode } from '../api/client';

/** Translation keys by error code, for one namespace. */
export type CodeKeys = Partial<Record<ErrorCode, string>>;

/**
 * The server answers in English with a stable `code` beside the message. Every code has a
 * text here (main namespace) or in the code table of the area that meets it (meds, notify,
 * notifyPrefs, circle, records: a prescription's and batches'); errorCodes.test.ts checks that against the OpenAPI document.
 */
export const SERVER_CODE_KEYS: CodeKeys = {
  invalid_credentials: 'server.invalidCredentials',
  credentials_required: 'server.credentialsRequired',
  email_required: 'server.emailRequired',
  email_invalid: 'server.invalidEmail',
  password_required: 'server.enterPassword',
  password_too_short: 'server.passwordTooShort',
  password_too_long: 'server.passwordTooLong',
  first_name_too_long: 'server.firstNameTooLong',
  last_name_too_long: 'server.lastNameTooLong',
  code_required: 'server.enterCode',
  backup_code_required: 'server.enterBackupCode',
  invalid_token: 'server.invalidLink',
  reset_link_invalid: 'server.resetLinkInvalid',
  two_factor_required: 'server.codeRequired',
  invalid_code: 'server.invalidCode',
  email_not_verified: 'server.verifyFirst',
  rate_limited: 'server.tooManyAttempts',
  registration_closed: 'server.registrationClosed',
  email_taken: 'server.accountExists',
  method_not_enabled: 'server.methodNotEnabled',
  code_not_sent: 'server.codeNotSent',
  email_not_configured: 'server.emailNotConfigured',
  password_incorrect: 'server.wrongPassword',
  invalid_backup_code: 'server.invalidBackupCode',
  // The e-mail and the app setups answer with the same code; the app's dialog says which.
  method_already_enabled: 'server.emailAlreadyEnabled',
  totp_setup_not_started: 'server.startTotpFirst',
  two_factor_not_enabled: 'server.enableFirst',
  authentication_required: 'server.sessionEnded',
  session_expired: 'server.sessionEnded',
  internal_error: 'server.internal',
  request_timeout: 'server.requestTimeout',
  invalid_request: 'server.invalidRequest',
  validation_failed: 'server.validationFailed',
  body_too_large: 'server.bodyTooLarge',
  unsupported_media_type: 'server.unsupportedMediaType',
  not_found: 'server.notFound',
  method_not_allowed: 'server.methodNotAllowed',
  service_unavailable: 'server.serviceUnavailable',
  storage_full: 'server.storageFull',
  user_not_found: 'server.userNotFound',
  proxy_registration_not_allowed: 'server.proxyRegistrationNotAllowed',
  proxy_email_missing: 'server.proxyEmailMissing',
  oidc_not_configured: 'server.oidcNotConfigured',
  oidc_failed: 'server.oidcFailed',
  oidc_not_allowed: 'server.oidcNotAllowed',
  oidc_group_denied: 'server.oidcGroupDenied',
  oidc_code_invalid: 'server.oidcCodeInvalid',
  oidc_email_unverified: 'server.oidcEmailUnverified',
  oidc_identity_not_found: 'server.oidcIdentityNotFound',
  oidc_last_sign_in: 'server.oidcLastSignIn',
  unit_invalid: 'server.unitInvalid',
  dose_too_soon: 'server.doseTooSoon',
  daily_maximum_reached: 'server.dailyMaximumReached',
  notification_not_sent: 'server.notificationNotSent',
  invalid_snooze_minutes: 'server.invalidSnoozeMinutes',
  calendar_feed_not_found: 'server.calendarFeedNotFound',
  api_token_name_required: 'server.apiTokenNameRequired',
  api_token_name_too_long: 'server.apiTokenNameTooLong',
  api_token_scope_invalid: 'server.apiTokenScopeInvalid',
  api_token_expiry_invalid: 'server.apiTokenExpiryInvalid',
  api_token_limit_reached: 'server.apiTokenLimitReached',
  api_token_not_found: 'server.apiTokenNotFound',
  api_token_invalid: 'server.apiTokenInvalid',
  passkeys_not_configured: 'server.passkeysNotConfigured',
  passkey_ceremony_invalid: 'server.passkeyCeremonyInvalid',
  passkey_invalid: 'server.passkeyInvalid',
  passkey_counter_invalid: 'server.passkeyCounterInvalid',
  passkey_name_required: 'server.passkeyNameRequired',
  passkey_name_too_long: 'server.passkeyNameTooLong',
  passkey_not_found: 'server.passkeyNotFound',
  passkey_already_registered: 'server.passkeyAlreadyRegistered',
  passkey_limit_reached: 'server.passkeyLimitReached',
  passkey_last_sign_in_method: 'server.passkeyLastSignInMethod',
  token_not_allowed: 'server.tokenNotAllowed',
  delivery_failed: 'server.deliveryFailed',
  backup_not_found: 'server.backupNotFound',
  import_invalid: 'server.importInvalid',
  import_has_unreadable_rows: 'server.importHasUnreadableRows',
  prescription_not_found: 'server.prescriptionNotFound',
};

/**
 * Codes whose message is the specific reason (which field or rule, which line of a file,
 * which channel failed), something a general text cannot say: the server's message is shown
 * when it sent one, the translation when it did not.
 */
const DETAIL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_request',
  'validation_failed',
  'import_invalid',
  'notification_not_sent',
  'delivery_failed',
]);

/** The translation of a refusal's code among `keys`, with its params; null when there is none. */
export function translateCode(t: TFunction, error: ApiError, keys: CodeKeys): string | null {
  const key = error.code === null ? undefined : keys[error.code];
  return key === undefined ? null : t(key, { ...error.params });
}

/** The message the server put in an error answer, if it gave one. */
export function serverMessageOf(error: ApiError): string | null {
  return isJsonObject(error.body) && typeof error.body.message === 'string' && error.body.message !== ''
    ? error.body.message
    : null;
}

/**
 * What a refusal says to a person: its code translated (`overrides` first, in the namespace
 * of `t`), else the server's message; null when the answer had neither. A detail code
 * (DETAIL_CODES) shows the server's message first.
 */
export function serverErrorText(t: TFunction, error: ApiError, overrides: CodeKeys = {}): string | null {
  const keys = { ...SERVER_CODE_KEYS, ...overrides };
  if (error.code !== null && DETAIL_CODES.has(error.code) && overrides[error.code] === undefined) {
    return serverMessageOf(error) ?? translateCode(t, error, keys);
  }
  return translateCode(t, error, keys) ?? serverMessageOf(error);
}

/**
 * The text to show for a failed call: the server's message when it sent one (spec §8
 * "The server message is shown when present"), translated by its code, the network error,
 * else the screen's own fallback. Errors wrapping another (`cause`) are looked through.
 * `codeKeys` names a screen's own translation for a code (e.g. "Current password is
 * incorrect" where the account's only says "Password is incorrect").
 */
export function errorText(
  t: TFunction,
  error: unknown,
  fallbackKey: string,
  options?: Record<string, string>,
  codeKeys?: CodeKeys,
): string {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApiError) {
      const text = serverErrorText(t, current, codeKeys);
      if (text !== null) return text;
      break;
    }
    if (current.message === NETWORK_ERROR_MESSAGE) return t('errors.network');
    current = current.cause;
  }
  return t(fallbackKey, options);
}

import type { CodeKeys } from '../../i18n/messages';

/**
 * Where a token's refusals need their own words: a person not found here is one the token
 * was to be limited to. The rest of the token codes are in `SERVER_CODE_KEYS`.
 */
export const TOKEN_CODE_KEYS: CodeKeys = {
  person_not_found: 'server.apiTokenPersonNotFound',
};

/** The longest name and the lifetimes the server accepts (services::api_tokens). */
export const TOKEN_NAME_MAX = 100;
export const TOKEN_EXPIRY_MIN_DAYS = 1;
export const TOKEN_EXPIRY_MAX_DAYS = 3650;

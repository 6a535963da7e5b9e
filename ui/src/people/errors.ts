// Error texts of the care circle's screens: a code of ours translated (params fill the
// values), else what the medication screens and the account screens would say.
import { ApiError } from '../api/client';
import i18n from '../i18n';
import { translateCode } from '../i18n/messages';
import { medsErrorText } from '../medications/errors';
import { CIRCLE_CODE_KEYS } from './circleCodes';

/** Our text for a care circle refusal, or null when the error is not one. */
export function circleCodeText(error: unknown): string | null {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApiError) return translateCode(i18n.getFixedT(null, 'circle'), current, CIRCLE_CODE_KEYS);
    current = current.cause;
  }
  return null;
}

/** The text for a failed call of the care circle; `fallbackKey` is in the `circle` namespace. */
export function circleErrorText(error: unknown, fallbackKey: string): string {
  return circleCodeText(error) ?? medsErrorText(i18n.getFixedT(null, 'meds'), error, `circle:${fallbackKey}`);
}

/** The error code of a refusal, looked up through wrapped errors. */
export function errorCodeOf(error: unknown): string | null {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApiError) return current.code;
    current = current.cause;
  }
  return null;
}

// Error texts of the medication screens (SPEC §8 "Medications and history"): the server's
// message when it sent one, translated by its code when we know it, else the screen's own
// fallback.
import type { TFunction } from '../i18n';
import { ApiError, NETWORK_ERROR_MESSAGE } from '../api/client';
import i18n from '../i18n';
import { serverErrorText, translateCode, type CodeKeys } from '../i18n/messages';
import { CIRCLE_CODE_KEYS } from '../people/circleCodes';
import { UnitConversionError, type Problem } from './units';

/** The medication area's codes, translated in the `meds` namespace (params fill the values). */
export const MEDS_CODE_KEYS: CodeKeys = {
  name_required: 'validation.nameRequired',
  unit_required: 'validation.unitRequired',
  future_date: 'validation.futureDate',
  inventory_not_enabled: 'inventory.errors.notEnabled',
  medication_not_found: 'errors.medicationNotFound',
  entry_not_found: 'errors.entryNotFound',
  notification_not_found: 'errors.notificationNotFound',
  notification_not_scheduled: 'errors.onlyScheduledCancel',
  reminder_exists: 'errors.reminderExists',
  notification_sending: 'errors.notificationSending',
  strength_needed: 'inventory.errors.strengthNeeded',
  unit_mismatch: 'inventory.errors.unitMismatch',
  unit_incompatible: 'conversion.incompatible',
  stock_below_zero: 'inventory.errors.belowZero',
  batch_not_found: 'inventory.batches.errors.notFound',
  stock_in_batches: 'inventory.batches.errors.inBatches',
};

/** Our translation of a refusal of the medication area, or null when it is not one of ours. */
function medsCodeText(t: TFunction, error: ApiError): string | null {
  // "Unit 'X' is not a valid medical unit" names the unit; "Invalid unit specified" does not.
  if (error.code === 'unit_invalid') {
    const unit = error.params.unit;
    return unit === undefined ? t('conversion.invalidUnit') : t('validation.unitInvalid', { unit });
  }
  // The care circle's refusals (a carer's role, an escalation) meet the medication screens too.
  return translateCode(t, error, MEDS_CODE_KEYS) ?? translateCode(i18n.getFixedT(null, 'circle'), error, CIRCLE_CODE_KEYS);
}

/** A problem's text; a `field` value is a key of the field's own name. */
export function problemText(t: TFunction, problem: Problem): string {
  const field = problem.values?.field;
  return t(problem.key, field === undefined ? problem.values : { ...problem.values, field: t(field) });
}

/**
 * The text for a failed call. `t` is the `meds` namespace's; messages of the account
 * screens and the network error come from the app's main namespace.
 */
export function medsErrorText(t: TFunction, error: unknown, fallbackKey: string): string {
  const common = i18n.getFixedT(null, 'translation');
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof UnitConversionError) return problemText(t, current.problem);
    if (current instanceof ApiError) {
      const text = medsCodeText(t, current) ?? serverErrorText(common, current);
      if (text === null) break;
      return text;
    }
    if (current.message === NETWORK_ERROR_MESSAGE) return common('errors.network');
    current = current.cause;
  }
  return t(fallbackKey);
}

// Refusals of a medication's prescription and stock batches (issue 29). Their texts are in the
// `prescriptions` namespace, which the Medications screen loads with itself (Today does not),
// and this table is imported only by that screen's forms, so neither weighs on Today.
import type { TFunction } from '../i18n';
import { ApiError } from '../api/client';
import i18n from '../i18n';
import type { CodeKeys } from '../i18n/messages';
import { medsErrorText } from './errors';

/** The prescription and batch codes, translated in the `prescriptions` namespace. */
export const RECORD_CODE_KEYS: CodeKeys = {
  prescription_text_too_long: 'errors.textTooLong',
  prescription_text_invalid: 'errors.textInvalid',
  pharmacy_phone_invalid: 'errors.phoneInvalid',
  pharmacy_url_invalid: 'errors.urlInvalid',
  prescription_date_invalid: 'errors.dateInvalid',
  prescription_expires_before_written: 'errors.expiresBeforeWritten',
  refills_out_of_range: 'errors.refillsOutOfRange',
  refills_left_above_authorised: 'errors.refillsLeftAboveAuthorised',
  order_days_out_of_range: 'errors.orderDaysOutOfRange',
  batch_quantity_required: 'errors.batch.quantityRequired',
  batch_quantity_out_of_range: 'errors.batch.quantityOutOfRange',
  batch_quantity_below_drawn: 'errors.batch.quantityBelowDrawn',
  batch_remaining_out_of_range: 'errors.batch.remainingOutOfRange',
  batch_expiry_required: 'errors.batch.expiryRequired',
  batch_expiry_invalid: 'errors.batch.expiryInvalid',
  batch_lot_too_long: 'errors.batch.lotTooLong',
};

/** The form's label of each prescription field the server names in `params.field`. */
const FIELD_LABELS: Record<string, string> = {
  prescriber: 'prescription.prescriber',
  pharmacy_name: 'prescription.pharmacyName',
  pharmacy_phone: 'prescription.pharmacyPhone',
  pharmacy_url: 'prescription.pharmacyUrl',
  prescribed_on: 'prescription.prescribedOn',
  expires_on: 'prescription.expiresOnField',
  refills_authorised: 'prescription.refillsAuthorised',
  refills_left: 'prescription.refillsLeft',
  order_days_before: 'prescription.orderDaysBefore',
};

/** Our translation of a prescription or batch refusal, with the field named as the form names it. */
export function recordCodeText(error: ApiError): string | null {
  const key = error.code === null ? undefined : RECORD_CODE_KEYS[error.code];
  if (key === undefined) return null;
  const t = i18n.getFixedT(null, 'prescriptions');
  const field = error.params.field;
  const label = field === undefined ? undefined : FIELD_LABELS[field];
  return t(key, { ...error.params, field: label === undefined ? field : t(label) });
}

/**
 * The text for a failed call of a form with a prescription or batches: their refusals in the
 * person's language, anything else as `medsErrorText` says it.
 */
export function recordErrorText(t: TFunction, error: unknown, fallbackKey: string): string {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApiError) {
      const text = recordCodeText(current);
      if (text !== null) return text;
      break;
    }
    current = current.cause;
  }
  return medsErrorText(t, error, fallbackKey);
}

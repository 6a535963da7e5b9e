// Error texts of the medication screens (SPEC §8 "Medications and history"): the server's
// message when it sent one, translated when we know it, else the screen's own fallback.
import type { TFunction } from 'i18next';
import { ApiError, NETWORK_ERROR_MESSAGE, isJsonObject } from '../api/client';
import i18n from '../i18n';
import { translateServerMessage } from '../i18n/messages';
import { UnitConversionError, type Problem } from './units';

const EXACT: Record<string, string> = {
  'Name is required': 'validation.nameRequired',
  'Unit is required': 'validation.unitRequired',
  'Please enter a valid positive number for the dosage amount': 'validation.quantityPositive',
  'Please enter a dosage amount': 'validation.quantityRequired',
  'Please select a unit': 'validation.unitSelect',
  'Please select a medication': 'validation.medicationRequired',
  'Please select both date and time': 'validation.dateTimeRequired',
  'Cannot add entries for future dates': 'validation.futureDate',
  'Invalid unit specified': 'conversion.invalidUnit',
  'Container quantity, size, and unit are required for continuous inventory': 'inventory.errors.continuousRequired',
  'Container type, item quantity and unit are required for discrete inventory': 'inventory.errors.discreteRequired',
  'Container quantity must be a whole number of at least 1': 'inventory.errors.containerQuantity',
  'Item quantity must be a whole number of at least 1': 'inventory.errors.itemQuantity',
  'Container size cannot be negative': 'inventory.errors.containerSize',
  'Item strength cannot be negative': 'inventory.errors.itemStrength',
  'Reminder threshold cannot be negative': 'inventory.errors.threshold',
  'Current quantity cannot be negative': 'inventory.errors.currentQuantity',
  'Adjustment must be a non-zero number': 'inventory.errors.adjustmentNonZero',
  'Inventory is not enabled for this medication': 'inventory.errors.notEnabled',
  'Medication not found': 'errors.medicationNotFound',
  'History entry not found': 'errors.entryNotFound',
  'Notification not found': 'errors.notificationNotFound',
  'Only a scheduled notification can be cancelled': 'errors.onlyScheduledCancel',
};

const PATTERNS: [RegExp, (match: RegExpExecArray) => Problem][] = [
  [
    /^Unit '(.*)' is not a valid medical unit$/,
    (m) => ({ key: 'validation.unitInvalid', values: { unit: m[1] ?? '' } }),
  ],
  [
    /^Stock is counted in (.+) but doses are in (.+): enter how many .+ holds \(item strength\)\.?$/,
    (m) => ({ key: 'inventory.errors.strengthNeeded', values: { stock: m[1] ?? '', unit: m[2] ?? '' } }),
  ],
  [
    /^Stock is counted in (.+) but doses are in (.+): count the stock in .+$/,
    (m) => ({ key: 'inventory.errors.unitMismatch', values: { stock: m[1] ?? '', unit: m[2] ?? '' } }),
  ],
  [
    /^Cannot convert between (.+) and (.+)$/,
    (m) => ({ key: 'conversion.incompatible', values: { from: m[1] ?? '', to: m[2] ?? '' } }),
  ],
];

/** Our translation of a server message, or null when it is not one of ours. */
export function medsServerProblem(message: string): Problem | null {
  const key = EXACT[message];
  if (key) return { key };
  for (const [pattern, problem] of PATTERNS) {
    const match = pattern.exec(message);
    if (match) return problem(match);
  }
  return null;
}

export function problemText(t: TFunction, problem: Problem): string {
  return t(problem.key, problem.values);
}

function serverMessageOf(error: ApiError): string | null {
  return isJsonObject(error.body) && typeof error.body.message === 'string' && error.body.message !== ''
    ? error.body.message
    : null;
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
      const message = serverMessageOf(current);
      if (message === null) break;
      const mine = medsServerProblem(message);
      return mine ? problemText(t, mine) : translateServerMessage(common, message);
    }
    if (current.message === NETWORK_ERROR_MESSAGE) return common('errors.network');
    current = current.cause;
  }
  return t(fallbackKey);
}

// Which medications Today's refill notice lists: with Today's code (a few bytes) so that the
// notice, its texts and its styles are fetched only when there is something to order.
import type { Medication } from '../api/medicationTypes';

/** Its refill (or a new prescription) needs ordering and is not ordered yet. */
export function needsOrdering(medication: Medication): boolean {
  return medication.prescription?.refill?.ordered === false;
}

// A medication's prescription: marking a refill ordered (the prescription itself travels
// with the medication).
import { answer, api, callerHeaders } from './http';
import type { Medication } from './medicationTypes';

/** Marks a refill of the medication ordered (until stock comes in). */
export async function markRefillOrdered(id: number): Promise<Medication> {
  const path = { id };
  return (await answer(api.POST('/api/medications/{id}/refill-ordered', { headers: callerHeaders(), params: { path } })))
    .data;
}

// A medication's stock batches (/api/medications/{id}/inventory/batches), apart from the
// rest of the medications' calls: only the inventory dialog uses them.
import { answer, api, callerHeaders, done } from './http';
import type { Batch, BatchInput, Batches, NewBatchInput } from './medicationTypes';

/** A medication's stock batches, the first to expire first, with what they make up. */
export async function listBatches(medicationId: number, signal?: AbortSignal): Promise<Batches> {
  const params = { path: { id: medicationId } };
  return (await answer(api.GET('/api/medications/{id}/inventory/batches', { headers: callerHeaders(), params, signal }))).data;
}

/** Adds a batch (a first one turns the stock on, counted in batches from then on). */
export async function addBatch(medicationId: number, input: NewBatchInput): Promise<Batch> {
  const params = { path: { id: medicationId } };
  return (await answer(api.POST('/api/medications/{id}/inventory/batches', { headers: callerHeaders(), params, body: input }))).data;
}

export async function updateBatch(medicationId: number, batchId: number, input: BatchInput): Promise<Batch> {
  const params = { path: { id: medicationId, batchId } };
  return (
    await answer(api.PUT('/api/medications/{id}/inventory/batches/{batchId}', { headers: callerHeaders(), params, body: input }))
  ).data;
}

export async function deleteBatch(medicationId: number, batchId: number): Promise<void> {
  const params = { path: { id: medicationId, batchId } };
  await done(api.DELETE('/api/medications/{id}/inventory/batches/{batchId}', { headers: callerHeaders(), params }));
}

// A medication's stock batches, apart from the medications' queries that Today loads.
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { addBatch, deleteBatch, listBatches, updateBatch } from '../api/batches';
import type { BatchInput, NewBatchInput } from '../api/medicationTypes';
import { stockChanged, stockRefused } from './invalidate';
import { queryKeys } from './keys';

/** A medication's stock batches. */
export function useBatchesQuery(medicationId: number) {
  return useQuery({
    queryKey: queryKeys.batches(medicationId),
    queryFn: ({ signal }) => listBatches(medicationId, signal),
  });
}

/** A batch changed: the batches, the stock and every list that shows it are asked again. */
function batchesChanged(client: QueryClient, medicationId: number) {
  void client.invalidateQueries({ queryKey: [...queryKeys.medications, medicationId] });
  void client.invalidateQueries({ queryKey: queryKeys.medicationList });
  void client.invalidateQueries({ queryKey: queryKeys.today });
  stockChanged(client, medicationId);
}

/** What to do with a batch: add one (no `batchId`), change or delete (`remove`) one. */
type BatchCall = { batchId?: undefined; input: NewBatchInput } | { batchId: number; input?: BatchInput; remove?: boolean };

/** Adds (no `batchId`), changes or deletes (`remove`) one of the medication's batches. */
export function useBatchMutation(medicationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (call: BatchCall): Promise<void> => {
      if (call.batchId === undefined) await addBatch(medicationId, call.input);
      else if (call.remove) await deleteBatch(medicationId, call.batchId);
      else await updateBatch(medicationId, call.batchId, call.input ?? {});
    },
    onSuccess: () => batchesChanged(client, medicationId),
    onError: () => stockRefused(client, medicationId),
  });
}

// A medication's prescription: marking a refill ordered.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { markRefillOrdered } from '../api/prescriptions';
import { medicationChanged } from './invalidate';
import { putInLists } from './medications';

export function useMarkRefillOrdered() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => markRefillOrdered(id),
    onSuccess: (medication) => {
      putInLists(client, medication);
      medicationChanged(client, medication.id);
    },
  });
}

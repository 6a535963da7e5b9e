// The account's API tokens: the list, making one (its secret is in the answer only) and
// revoking one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createToken, listTokens, revokeToken } from '../api/tokens';
import { queryKeys } from './keys';

export function useApiTokensQuery() {
  return useQuery({ queryKey: queryKeys.apiTokens, queryFn: ({ signal }) => listTokens(signal) });
}

export function useCreateApiToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createToken,
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.apiTokens }),
  });
}

export function useRevokeApiToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: revokeToken,
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.apiTokens }),
  });
}

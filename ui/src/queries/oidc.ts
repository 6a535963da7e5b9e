// The identity provider past the sign-in itself: the linking page's offer (an existing account
// asked to link a provider's identity) and the identities linked to the account. Linking
// itself ends in a session, which auth/AuthProvider.tsx keeps (loginWithOidcLink).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { listOidcIdentities, openOidcLink, unlinkOidcIdentity } from '../api/oidc';
import { queryKeys } from './keys';

/**
 * The linking page's offer. Its code works once: one call per code per page load, however
 * often the page mounts; the answer is kept, never asked again.
 */
export function useOidcLinkQuery(code: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.oidcLink(code),
    queryFn: () => openOidcLink(code),
    enabled,
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
}

export function useOidcIdentitiesQuery() {
  return useQuery({ queryKey: queryKeys.oidcIdentities, queryFn: ({ signal }) => listOidcIdentities(signal) });
}

export function useUnlinkOidcIdentity() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: unlinkOidcIdentity,
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.oidcIdentities }),
  });
}

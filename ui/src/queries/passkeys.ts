// The account's passkeys: the list, adding one (the server's options, the browser's new
// passkey, then storing it under a name) and deleting one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { deletePasskey, listPasskeys, passkeyRegistrationOptions, registerPasskey } from '../api/passkeys';
import { createPasskey } from '../auth/webauthn';
import { queryKeys } from './keys';

/** Asked only where the server offers passkeys (`enabled`): elsewhere none can be used. */
export function usePasskeysQuery(enabled = true) {
  return useQuery({ queryKey: queryKeys.passkeys, queryFn: ({ signal }) => listPasskeys(signal), enabled });
}

/** Rejects with a PasskeyCeremonyError when the browser made no passkey. */
export function useAddPasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ name, password }: { name: string; password: string }) => {
      const { ceremony, publicKey } = await passkeyRegistrationOptions(password);
      const credential = await createPasskey(publicKey);
      return registerPasskey(ceremony, name, credential);
    },
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.passkeys }),
  });
}

export function useDeletePasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deletePasskey,
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.passkeys }),
  });
}

// A passkey's sign-in, loaded when a passkey is used: the sign-in page's first download does
// not carry the ceremony's code.
import type { AuthSession } from '../api';
import { login } from '../api/auth';
import { loginWithPasskey, passkeySignInOptions } from '../api/passkeys';
import { getPasskey } from './webauthn';

/**
 * A passkey's sign-in: the server's options, the browser's passkey, a session. After the
 * password (`after`), the passkey is the second factor; alone, it is the whole sign-in (the
 * authenticator names the account). Rejects with a PasskeyCeremonyError when the browser
 * gave no passkey, else with the server's refusal.
 */
export async function signInWithPasskey(after?: { email: string; password: string }): Promise<AuthSession> {
  const { ceremony, publicKey } = await passkeySignInOptions();
  const credential = await getPasskey(publicKey);
  if (after) return login(after.email, after.password, undefined, { ceremony, credential });
  return loginWithPasskey({ ceremony, credential });
}

import type { Registration } from '../api/types';

/**
 * Whether to offer "Create an account": when anyone may register, or when an invitation
 * waits on this device and invitations open registration. While the answer is unknown (not
 * loaded, or the server could not say), the form is offered and the server decides.
 */
export function registrationOffered(registration: Registration | undefined, invitationKept: boolean): boolean {
  if (registration === undefined) return true;
  return registration.open || (registration.invitations && invitationKept);
}

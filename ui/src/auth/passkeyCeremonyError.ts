// Why a passkey ceremony gave nothing, in a module of its own: the sign-in page tells these
// apart without loading the ceremony's code, which comes when a passkey is used.

/** Why the browser gave no passkey. */
export type PasskeyProblem =
  /** The person cancelled, or no authenticator answered in time (NotAllowedError). */
  | 'cancelled'
  /** This browser (or this address: passkeys need HTTPS) cannot use passkeys. */
  | 'unsupported'
  /** The authenticator already holds one of the account's passkeys (InvalidStateError). */
  | 'exists'
  /** Anything else the browser refused. */
  | 'failed';

export class PasskeyCeremonyError extends Error {
  readonly problem: PasskeyProblem;

  constructor(problem: PasskeyProblem, cause?: unknown) {
    super(`passkey ceremony: ${problem}`, { cause });
    this.name = 'PasskeyCeremonyError';
    this.problem = problem;
  }
}

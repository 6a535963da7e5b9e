import type { components } from './schema';

/** The API's types as its OpenAPI document describes them (generated: schema.d.ts). */
type Schemas = components['schemas'];

/**
 * The signed-in person, as GET /api/auth/me describes them (the document's `Profile`). Looser
 * than the document on purpose: the record is also read back from localStorage, where an
 * older version of the app may have left fewer fields.
 */
export interface User {
  id: number | string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  emailVerified?: boolean;
  created_at?: string;
}

/** A token and the user it belongs to, as login and registration return them. */
export interface AuthSession {
  token: string;
  user: User;
}

export type RegisterResult =
  | { kind: 'signedIn'; session: AuthSession }
  | { kind: 'verificationRequired'; user: User };

/**
 * GET /api/auth/registration: anyone may register now (`open`), or an open care invitation's
 * link lets its address register (`invitations`).
 */
export type Registration = Pick<Schemas['Registration'], 'open' | 'invitations'>;

export type TwoFactorMethod = Schemas['TwoFactorMethod'];
/** The methods Settings turns on, for checking values at run time. */
/** A method turned on and off with codes (passkeys are added and removed in their own card). */
export type CodeMethod = Schemas['SetupMethod'];
export const TWO_FACTOR_METHODS = ['email', 'totp'] as const satisfies readonly CodeMethod[];
/** What the code step of sign-in may offer: those methods, and one of the account's passkeys. */
export const SIGN_IN_METHODS = ['email', 'totp', 'passkey'] as const satisfies readonly TwoFactorMethod[];

/** For error bodies, which the document does not type: a method sign-in may offer. */
export function isTwoFactorMethod(value: unknown): value is TwoFactorMethod {
  return SIGN_IN_METHODS.some((method) => method === value);
}

// The calls (twoFactor.ts) turn the document's optional `preference` and `backupCodes` into
// null and [], so screens have one "none" to test for.

/** POST /api/auth/2fa/check-login-requirements (spec §3, "Login requirement check response"). */
export type LoginRequirements = Omit<Required<Schemas['LoginRequirements']>, 'success'>;

/**
 * GET /api/auth/2fa/status. `emailAvailable` is false when the server cannot send e-mail
 * (no SMTP), so e-mail codes cannot be enabled.
 */
export type TwoFactorStatus = Required<Schemas['TwoFactorStatus']>;

/** POST /api/auth/2fa/setup-totp (spec §3); `qrCodeUrl` is a `data:image/png;base64,…` URL. */
export type TotpSetup = Schemas['TotpSetup'];

/**
 * Enabling a method. The server signs out every other session, so the answer carries the
 * token this session must use from now on.
 */
export type TwoFactorEnabled = Omit<Schemas['Enabled'], 'backupCodes'> & { backupCodes: string[] };

/** Disabling a method; like enabling, it comes with a fresh token. */
export type TwoFactorDisabled = Required<Schemas['Disabled']>;

/** GET /api/auth/verify-email/{token} (spec §3, "Verification response"). */
export type VerificationResult = Schemas['EmailVerified'];

/** The signed-in person, as GET /api/auth/me describes them. */
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

export const TWO_FACTOR_METHODS = ['email', 'totp'] as const;
export type TwoFactorMethod = (typeof TWO_FACTOR_METHODS)[number];

/** POST /api/auth/2fa/check-login-requirements (spec §3, "Login requirement check response"). */
export interface LoginRequirements {
  requires2FA: boolean;
  availableMethods: TwoFactorMethod[];
  preferredMethod: TwoFactorMethod | null;
}

/** GET /api/auth/2fa/status. */
export interface TwoFactorStatus {
  methods: TwoFactorMethod[];
  preference: TwoFactorMethod | null;
  backupCodesRemaining: number;
  /** False when the server cannot send e-mail (no SMTP), so e-mail codes cannot be enabled. */
  emailAvailable: boolean;
}

/** POST /api/auth/2fa/setup-totp (spec §3, "TOTP setup response"). */
export interface TotpSetup {
  secret: string;
  /** A `data:image/png;base64,…` URL drawn by the server. */
  qrCodeUrl: string;
}

/**
 * Enabling a method. The server signs out every other session, so the answer carries the
 * token this session must use from now on.
 */
export interface TwoFactorEnabled {
  token: string;
  methods: TwoFactorMethod[];
  backupCodes: string[];
}

/** Disabling a method; like enabling, it comes with a fresh token. */
export interface TwoFactorDisabled {
  token: string;
  methods: TwoFactorMethod[];
  preference: TwoFactorMethod | null;
}

/** GET /api/auth/verify-email/{token} (spec §3, "Verification response"). */
export interface VerificationResult {
  success: boolean;
  emailVerified: boolean;
  message: string;
}

import { answer, api, callerHeaders, done } from './http';
import type { components } from './schema';
import type {
  AuthSession,
  CodeMethod,
  LoginRequirements,
  TotpSetup,
  TwoFactorDisabled,
  TwoFactorEnabled,
  TwoFactorMethod,
  TwoFactorStatus,
} from './types';

const ANONYMOUS = callerHeaders({ anonymous: true });

// ---- The sign-in code step (public; every call carries the password again) ----

/**
 * Whether a code step follows the password. The server only says so when the password is
 * right, so the password is sent too.
 */
export async function checkLoginRequirements(email: string, password: string): Promise<LoginRequirements> {
  const { requires2FA, availableMethods, preferredMethod } = await answer(
    api.POST('/api/auth/2fa/check-login-requirements', { headers: ANONYMOUS, body: { email, password } }),
  );
  return { requires2FA, availableMethods, preferredMethod: preferredMethod ?? null };
}

/** Asks the server to send a sign-in code (e-mail); for the authenticator there is nothing to send. */
export async function generateOtp(email: string, password: string, method: TwoFactorMethod): Promise<void> {
  await done(api.POST('/api/auth/2fa/generate-otp', { headers: ANONYMOUS, body: { email, password, method } }));
}

/** The code step as its own call; the same as a login with a code. */
export async function verifyOtp(email: string, password: string, otp: string): Promise<AuthSession> {
  return (await answer(api.POST('/api/auth/2fa/verify-otp', { headers: ANONYMOUS, body: { email, password, otp } }))).data;
}

// ---- Management (signed in) ----

export async function getTwoFactorStatus(signal?: AbortSignal): Promise<TwoFactorStatus> {
  const { data } = await answer(api.GET('/api/auth/2fa/status', { headers: callerHeaders(), signal }));
  return { ...data, preference: data.preference ?? null };
}

function enabled({ data }: components['schemas']['MessageData_Enabled']): TwoFactorEnabled {
  return { token: data.token, methods: data.methods, backupCodes: data.backupCodes ?? [] };
}

/**
 * Turns on e-mail codes; answers with the backup codes and this session's new token. The
 * account password is asked again, so a stolen session token alone cannot do it.
 */
export async function setupEmailTwoFactor(password: string): Promise<TwoFactorEnabled> {
  return enabled(await answer(api.POST('/api/auth/2fa/setup-email', { headers: callerHeaders(), body: { password } })));
}

/**
 * Starts authenticator setup: a new secret and its QR code (drawn by the server). Needs the
 * account password; finishing the setup then needs only the code.
 */
export async function setupTotp(password: string): Promise<TotpSetup> {
  return (await answer(api.POST('/api/auth/2fa/setup-totp', { headers: callerHeaders(), body: { password } }))).data;
}

/** Finishes authenticator setup with a code from the app. */
export async function completeTotpSetup(otp: string): Promise<TwoFactorEnabled> {
  return enabled(await answer(api.POST('/api/auth/2fa/complete-totp-setup', { headers: callerHeaders(), body: { otp } })));
}

/** Turns one method off; a backup code is required and used up. */
export async function disableTwoFactorMethod(
  method: CodeMethod,
  backupCode: string,
): Promise<TwoFactorDisabled> {
  const { data } = await answer(
    api.POST('/api/auth/2fa/disable-method', { headers: callerHeaders(), body: { method, backupCode } }),
  );
  return { ...data, preference: data.preference ?? null };
}

export async function setTwoFactorPreference(preference: TwoFactorMethod): Promise<TwoFactorMethod | null> {
  const { data } = await answer(api.POST('/api/auth/2fa/set-preference', { headers: callerHeaders(), body: { preference } }));
  return data.preference ?? null;
}

/** A fresh set of backup codes; the old ones stop working. Needs the account password. */
export async function regenerateBackupCodes(password: string): Promise<string[]> {
  return (await answer(api.POST('/api/auth/2fa/backup-codes', { headers: callerHeaders(), body: { password } }))).data
    .backupCodes;
}

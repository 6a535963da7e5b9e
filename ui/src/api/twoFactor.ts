import { apiRequest, isJsonObject } from './client';
import { nonEmptyString, parseMethod, parseMethods, parseStrings, payloadOf } from './parse';
import type {
  AuthSession,
  LoginRequirements,
  TotpSetup,
  TwoFactorDisabled,
  TwoFactorEnabled,
  TwoFactorMethod,
  TwoFactorStatus,
} from './types';
import { parseUser } from './auth';

// ---- The sign-in code step (public; every call carries the password again) ----

/**
 * Whether a code step follows the password. The server only says so when the password is
 * right, so the password is sent too.
 */
export async function checkLoginRequirements(email: string, password: string): Promise<LoginRequirements> {
  const body = await apiRequest('/api/auth/2fa/check-login-requirements', {
    method: 'POST',
    anonymous: true,
    body: { email, password },
  });
  if (!isJsonObject(body) || body.success === false) {
    throw new Error(
      (isJsonObject(body) ? nonEmptyString(body.message) ?? nonEmptyString(body.error) : null) ??
        'Failed to check login requirements',
    );
  }
  const flat = body.requires2FA === undefined ? payloadOf(body) ?? body : body;
  return {
    requires2FA: flat.requires2FA === true,
    availableMethods: parseMethods(flat.availableMethods),
    preferredMethod: parseMethod(flat.preferredMethod),
  };
}

/** Asks the server to send a sign-in code (e-mail); for the authenticator there is nothing to send. */
export async function generateOtp(email: string, password: string, method: TwoFactorMethod): Promise<void> {
  await apiRequest('/api/auth/2fa/generate-otp', {
    method: 'POST',
    body: { email, password, method },
    anonymous: true,
  });
}

/** The code step as its own call; the same as a login with a code. */
export async function verifyOtp(email: string, password: string, otp: string): Promise<AuthSession> {
  const body = await apiRequest('/api/auth/2fa/verify-otp', {
    method: 'POST',
    body: { email, password, otp },
    anonymous: true,
  });
  const payload = payloadOf(body);
  const user = parseUser(payload?.user);
  const token = nonEmptyString(payload?.token);
  if (!isJsonObject(body) || body.success !== true || !user || !token) {
    throw new Error('OTP verification failed');
  }
  return { user, token };
}

// ---- Management (signed in) ----

export async function getTwoFactorStatus(signal?: AbortSignal): Promise<TwoFactorStatus> {
  const data = payloadOf(await apiRequest('/api/auth/2fa/status', { signal }));
  if (!data || !Array.isArray(data.methods)) throw new Error('Failed to load 2FA status');
  return {
    methods: parseMethods(data.methods),
    preference: parseMethod(data.preference),
    backupCodesRemaining: typeof data.backupCodesRemaining === 'number' ? data.backupCodesRemaining : 0,
    // Older servers do not say; assume e-mail works and let the call report otherwise.
    emailAvailable: data.emailAvailable !== false,
  };
}

function parseEnabled(body: Parameters<typeof payloadOf>[0], failure: string): TwoFactorEnabled {
  const data = payloadOf(body);
  const token = nonEmptyString(data?.token);
  const backupCodes = parseStrings(data?.backupCodes);
  if (!data || !token || !backupCodes) throw new Error(failure);
  return { token, backupCodes, methods: parseMethods(data.methods) };
}

/**
 * Turns on e-mail codes; answers with the backup codes and this session's new token. The
 * account password is asked again, so a stolen session token alone cannot do it.
 */
export async function setupEmailTwoFactor(password: string): Promise<TwoFactorEnabled> {
  const body = await apiRequest('/api/auth/2fa/setup-email', { method: 'POST', body: { password } });
  return parseEnabled(body, 'Failed to setup email 2FA');
}

/**
 * Starts authenticator setup: a new secret and its QR code (drawn by the server). Needs the
 * account password; finishing the setup then needs only the code.
 */
export async function setupTotp(password: string): Promise<TotpSetup> {
  const data = payloadOf(await apiRequest('/api/auth/2fa/setup-totp', { method: 'POST', body: { password } }));
  const secret = nonEmptyString(data?.secret);
  const qrCodeUrl = nonEmptyString(data?.qrCodeUrl);
  if (!secret || !qrCodeUrl) throw new Error('Failed to start TOTP setup');
  return { secret, qrCodeUrl };
}

/** Finishes authenticator setup with a code from the app. */
export async function completeTotpSetup(otp: string): Promise<TwoFactorEnabled> {
  const body = await apiRequest('/api/auth/2fa/complete-totp-setup', { method: 'POST', body: { otp } });
  return parseEnabled(body, 'Failed to verify TOTP code');
}

/** Turns one method off; a backup code is required and used up. */
export async function disableTwoFactorMethod(
  method: TwoFactorMethod,
  backupCode: string,
): Promise<TwoFactorDisabled> {
  const body = await apiRequest('/api/auth/2fa/disable-method', {
    method: 'POST',
    body: { method, backupCode },
  });
  const data = payloadOf(body);
  const token = nonEmptyString(data?.token);
  if (!data || !token) throw new Error('Failed to disable method');
  return { token, methods: parseMethods(data.methods), preference: parseMethod(data.preference) };
}

export async function setTwoFactorPreference(preference: TwoFactorMethod): Promise<TwoFactorMethod | null> {
  const data = payloadOf(
    await apiRequest('/api/auth/2fa/set-preference', { method: 'POST', body: { preference } }),
  );
  return parseMethod(data?.preference);
}

/** A fresh set of backup codes; the old ones stop working. Needs the account password. */
export async function regenerateBackupCodes(password: string): Promise<string[]> {
  const data = payloadOf(await apiRequest('/api/auth/2fa/backup-codes', { method: 'POST', body: { password } }));
  const codes = parseStrings(data?.backupCodes);
  if (!codes) throw new Error('Failed to regenerate backup codes');
  return codes;
}

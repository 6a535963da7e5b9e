// The signed-in person's own account: profile, password, two-factor, signing out everywhere
// and deleting the account. Changes that sign out other sessions answer with this session's
// new token; the screens store it (useAuth) before they ask for anything else, so these
// mutations leave refetching the two-factor status to them.
import { useMutation } from '@tanstack/react-query';
import { changePassword, deleteAccount, logoutAll, updateProfile } from '../api/auth';
import {
  completeTotpSetup,
  disableTwoFactorMethod,
  regenerateBackupCodes,
  setTwoFactorPreference,
  setupEmailTwoFactor,
  setupTotp,
} from '../api/twoFactor';
import type { CodeMethod, TwoFactorMethod } from '../api/types';

export function useUpdateProfile() {
  return useMutation({
    mutationFn: (changes: { firstName: string; lastName: string }) => updateProfile(changes),
  });
}

/** Every other session is signed out; the answer is this one's new session. */
export function useChangePassword() {
  return useMutation({
    mutationFn: ({ current, next }: { current: string; next: string }) => changePassword(current, next),
  });
}

export function useDeleteAccount() {
  return useMutation({ mutationFn: (password: string) => deleteAccount(password) });
}

/** Ends every session of the account on the server, this one's too. */
export function useSignOutEverywhere() {
  return useMutation({ mutationFn: () => logoutAll() });
}

export function useSetupEmailTwoFactor() {
  return useMutation({ mutationFn: (password: string) => setupEmailTwoFactor(password) });
}

export function useStartTotpSetup() {
  return useMutation({ mutationFn: (password: string) => setupTotp(password) });
}

export function useCompleteTotpSetup() {
  return useMutation({ mutationFn: (code: string) => completeTotpSetup(code) });
}

export function useDisableTwoFactorMethod() {
  return useMutation({
    mutationFn: ({ method, backupCode }: { method: CodeMethod; backupCode: string }) =>
      disableTwoFactorMethod(method, backupCode),
  });
}

export function useSetTwoFactorPreference() {
  return useMutation({ mutationFn: (preference: TwoFactorMethod) => setTwoFactorPreference(preference) });
}

export function useRegenerateBackupCodes() {
  return useMutation({ mutationFn: (password: string) => regenerateBackupCodes(password) });
}

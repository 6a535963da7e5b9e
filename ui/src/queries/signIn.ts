// The public pages around signing in: a sign-in code, e-mail verification, and a forgotten
// password. Signing in itself (the password step, the code step, the session) stays in
// auth/AuthProvider.tsx and auth/loginFlow.ts, which hold the session the app runs on.
import { useMutation, useQuery } from '@tanstack/react-query';
import { forgotPassword, resendVerification, resetPassword, verifyEmail } from '../api/auth';
import { generateOtp } from '../api/twoFactor';
import type { TwoFactorMethod } from '../api/types';
import { queryKeys } from './keys';

/** Asks the server to send a sign-in code; the password goes along, as at every code step. */
export function useSendSignInCode() {
  return useMutation({
    mutationFn: ({ email, password, method }: { email: string; password: string; method: TwoFactorMethod }) =>
      generateOtp(email, password, method),
  });
}

/**
 * A verification link works once: one call per token per page load, however often the page
 * mounts (development's StrictMode mounts it twice). The answer is kept, never asked again.
 */
export function useVerifyEmailQuery(token: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.emailVerification(token),
    queryFn: () => verifyEmail(token),
    enabled,
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
}

export function useResendVerification() {
  return useMutation({ mutationFn: (email: string) => resendVerification(email) });
}

export function useForgotPassword() {
  return useMutation({ mutationFn: (email: string) => forgotPassword(email) });
}

export function useResetPassword() {
  return useMutation({
    mutationFn: ({ token, password }: { token: string; password: string }) => resetPassword(token, password),
  });
}

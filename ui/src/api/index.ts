// The one API client: screens import from here and never call fetch themselves.
export { ApiError, NETWORK_ERROR_MESSAGE, apiBaseUrl, apiRequest, setUnauthorizedHandler } from './client';
export type { ErrorCode, ErrorParams } from './client';
export {
  changePassword,
  deleteAccount,
  exchangeOidcCode,
  forgotPassword,
  getMe,
  getRegistration,
  isProxyRefusal,
  login,
  logout,
  logoutAll,
  proxySession,
  refreshToken,
  register,
  requiresEmailVerification,
  resendVerification,
  resetPassword,
  twoFactorChallenge,
  updateProfile,
  verifyEmail,
} from './auth';
export {
  checkLoginRequirements,
  completeTotpSetup,
  disableTwoFactorMethod,
  generateOtp,
  getTwoFactorStatus,
  regenerateBackupCodes,
  setTwoFactorPreference,
  setupEmailTwoFactor,
  setupTotp,
  verifyOtp,
} from './twoFactor';
export { getVersion } from './version';
export {
  clearSession,
  getStoredToken,
  signedInByProxy,
  storeProxySession,
  storeSession,
  storeToken,
  storeUser,
} from './session';
export type {
  AuthSession,
  LoginRequirements,
  RegisterResult,
  Registration,
  TotpSetup,
  TwoFactorDisabled,
  TwoFactorEnabled,
  TwoFactorMethod,
  TwoFactorStatus,
  User,
  VerificationResult,
} from './types';
export { TWO_FACTOR_METHODS } from './types';

// The one API client: screens import from here and never call fetch themselves.
export { ApiError, NETWORK_ERROR_MESSAGE, apiBaseUrl, apiRequest } from './client';
export { getMe, login, logout, register, requiresEmailVerification } from './auth';
export { getVersion } from './version';
export { clearSession, getStoredToken, storeSession, storeUser } from './session';
export type { AuthSession, RegisterResult, User } from './types';

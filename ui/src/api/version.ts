import { apiRequest, isJsonObject } from './client';

/** The server's version string, from GET /api/version (`data.version`). */
export async function getVersion(signal?: AbortSignal): Promise<string> {
  const body = await apiRequest('/api/version', { signal });
  const version = isJsonObject(body) && isJsonObject(body.data) ? body.data.version : undefined;
  if (typeof version !== 'string' || version === '') {
    throw new Error('Invalid version response format');
  }
  return version;
}

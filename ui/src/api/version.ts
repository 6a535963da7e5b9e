import { apiRequest, isJsonObject, type Json } from './client';
import type { components } from './schema';

/** GET /api/version's `data`, as the server's OpenAPI document describes it. */
type VersionInfo = components['schemas']['VersionInfo'];

function parseVersionInfo(body: Json): VersionInfo | null {
  const data = isJsonObject(body) ? body.data : undefined;
  if (!isJsonObject(data) || typeof data.version !== 'string' || data.version === '') return null;
  return { version: data.version };
}

/** The server's version string, from GET /api/version (`data.version`). */
export async function getVersion(signal?: AbortSignal): Promise<string> {
  const info = parseVersionInfo(await apiRequest('/api/version', { signal }));
  if (!info) throw new Error('Invalid version response format');
  return info.version;
}

import { answer, api, callerHeaders } from './http';

/** The server's version string, from GET /api/version (`data.version`). */
export async function getVersion(signal?: AbortSignal): Promise<string> {
  return (await answer(api.GET('/api/version', { headers: callerHeaders(), signal }))).data.version;
}

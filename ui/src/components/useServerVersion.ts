import { useEffect, useState } from 'react';
import { getVersion } from '../api';

export const FALLBACK_VERSION = 'dev';

/** The server's version for labels; stays "dev" when it cannot be fetched. */
export function useServerVersion(): string {
  const [version, setVersion] = useState(FALLBACK_VERSION);
  useEffect(() => {
    const controller = new AbortController();
    getVersion(controller.signal).then(setVersion, () => {
      // Tolerated: the label keeps its fallback.
    });
    return () => controller.abort();
  }, []);
  return version;
}

import { useCallback, useEffect, useState } from 'react';
import { getDataSettings, type DataSettings } from '../../../api/data';

/** The server's data settings for a section: null while loading, with a retry after a failure. */
export function useDataSettings() {
  const [settings, setSettings] = useState<DataSettings | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    getDataSettings(controller.signal)
      .then(setSettings)
      .catch(() => {
        if (!controller.signal.aborted) setFailed(true);
      });
    return () => controller.abort();
  }, [attempt]);

  const retry = useCallback(() => {
    setFailed(false);
    setAttempt((n) => n + 1);
  }, []);

  const change = useCallback((changes: Partial<DataSettings>) => {
    setSettings((current) => (current ? { ...current, ...changes } : current));
  }, []);

  return { settings, failed, retry, change };
}

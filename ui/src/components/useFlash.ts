import { useCallback, useEffect, useRef, useState } from 'react';

export interface Flash {
  kind: 'success' | 'error';
  text: string;
}

/** Settings messages: successes for 3 s, errors for 5 s (spec §4, §9). */
export const SUCCESS_MS = 3000;
export const ERROR_MS = 5000;

/** A message that disappears by itself; a new one replaces the old. */
export function useFlash(): [Flash | null, (kind: Flash['kind'], text: string) => void, () => void] {
  const [flash, setFlash] = useState<Flash | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const clear = useCallback(() => {
    clearTimeout(timer.current);
    setFlash(null);
  }, []);

  const show = useCallback((kind: Flash['kind'], text: string) => {
    clearTimeout(timer.current);
    setFlash({ kind, text });
    timer.current = setTimeout(() => setFlash(null), kind === 'success' ? SUCCESS_MS : ERROR_MS);
  }, []);

  useEffect(() => () => clearTimeout(timer.current), []);

  return [flash, show, clear];
}

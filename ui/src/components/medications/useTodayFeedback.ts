import { useCallback, useEffect, useRef, useState } from 'react';

/** SPEC §4 "Today feedback", §9 timings. */
export const LOGGED_MS = 2000;
export const TODAY_SUCCESS_MS = 3000;
export const TODAY_ERROR_MS = 5000;

type Timer = ReturnType<typeof setTimeout> | undefined;

function useTimedValue<T>(ms: number): [T | null, (value: T) => void, () => void] {
  const [value, setValue] = useState<T | null>(null);
  const timer = useRef<Timer>(undefined);
  const clear = useCallback(() => {
    clearTimeout(timer.current);
    setValue(null);
  }, []);
  const show = useCallback(
    (next: T) => {
      clearTimeout(timer.current);
      setValue(next);
      timer.current = setTimeout(() => setValue(null), ms);
    },
    [ms],
  );
  useEffect(() => () => clearTimeout(timer.current), []);
  return [value, show, clear];
}

export interface TodayFeedback {
  /** Which button says "Logged!": `${medicationId}:${status}`. */
  logged: string | null;
  success: string | null;
  error: string | null;
  /** A dose was logged: the button says "Logged!" for 2 s, the message stays 3 s. */
  confirmLogged: (buttonKey: string, message: string) => void;
  /** A dose logged without a card's button: the message stays 3 s. */
  showSuccess: (message: string) => void;
  /** Logging failed: the message stays 5 s. */
  failed: (message: string) => void;
  clearError: () => void;
}

export function useTodayFeedback(): TodayFeedback {
  const [logged, showLogged] = useTimedValue<string>(LOGGED_MS);
  const [success, showSuccess] = useTimedValue<string>(TODAY_SUCCESS_MS);
  const [error, showError, clearError] = useTimedValue<string>(TODAY_ERROR_MS);
  const confirmLogged = useCallback(
    (buttonKey: string, message: string) => {
      clearError();
      showLogged(buttonKey);
      showSuccess(message);
    },
    [clearError, showLogged, showSuccess],
  );
  return { logged, success, error, confirmLogged, showSuccess, failed: showError, clearError };
}

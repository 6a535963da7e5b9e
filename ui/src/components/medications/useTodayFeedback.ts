import { useCallback, useEffect, useRef, useState } from 'react';

/** SPEC §4 "Today feedback", §9 timings. */
export const LOGGED_MS = 2000;
export const TODAY_SUCCESS_MS = 3000;
export const TODAY_ERROR_MS = 5000;
/** How long a logged dose can be undone from its confirmation. */
export const UNDO_MS = 10_000;

type Timer = ReturnType<typeof setTimeout> | undefined;

function useTimedValue<T>(ms: number): [T | null, (value: T, forMs?: number) => void, () => void] {
  const [value, setValue] = useState<T | null>(null);
  const timer = useRef<Timer>(undefined);
  const clear = useCallback(() => {
    clearTimeout(timer.current);
    setValue(null);
  }, []);
  const show = useCallback(
    (next: T, forMs: number = ms) => {
      clearTimeout(timer.current);
      setValue(next);
      timer.current = setTimeout(() => setValue(null), forMs);
    },
    [ms],
  );
  useEffect(() => () => clearTimeout(timer.current), []);
  return [value, show, clear];
}

/** The entry a confirmation can take back: the one the log just wrote. */
export interface UndoOffer {
  entryId: number;
  name: string;
}

interface Confirmation {
  text: string;
  undo: UndoOffer | null;
}

export interface TodayFeedback {
  /** Which button says "Logged!": `${medicationId}:${status}`. */
  logged: string | null;
  success: string | null;
  /** The log the confirmation offers to undo, while it does. */
  undo: UndoOffer | null;
  error: string | null;
  /**
   * A dose was logged: the button says "Logged!" for 2 s; the message stays 3 s, or 10 s
   * with the Undo it offers.
   */
  confirmLogged: (buttonKey: string, message: string, undo?: UndoOffer) => void;
  /** A dose logged without a card's button (or undone): the message, as `confirmLogged`. */
  showSuccess: (message: string, undo?: UndoOffer) => void;
  /** Logging failed: the message stays 5 s. */
  failed: (message: string) => void;
  clearError: () => void;
}

export function useTodayFeedback(): TodayFeedback {
  const [logged, showLogged] = useTimedValue<string>(LOGGED_MS);
  const [confirmation, showConfirmation] = useTimedValue<Confirmation>(TODAY_SUCCESS_MS);
  const [error, showError, clearError] = useTimedValue<string>(TODAY_ERROR_MS);
  const showSuccess = useCallback(
    (text: string, undo?: UndoOffer) =>
      showConfirmation({ text, undo: undo ?? null }, undo ? UNDO_MS : TODAY_SUCCESS_MS),
    [showConfirmation],
  );
  const confirmLogged = useCallback(
    (buttonKey: string, message: string, undo?: UndoOffer) => {
      clearError();
      showLogged(buttonKey);
      showSuccess(message, undo);
    },
    [clearError, showLogged, showSuccess],
  );
  return {
    logged,
    success: confirmation?.text ?? null,
    undo: confirmation?.undo ?? null,
    error,
    confirmLogged,
    showSuccess,
    failed: showError,
    clearError,
  };
}

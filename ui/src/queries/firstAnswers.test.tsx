import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIRST_ANSWERS_CAP_MS, useFirstAnswers } from './firstAnswers';

const pending = { isPending: true, failureCount: 0 };
const answered = { isPending: false, failureCount: 0 };
const retrying = { isPending: true, failureCount: 1 };

describe('useFirstAnswers', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('holds while a first try is out, and lets the screen show once every answer is in', () => {
    const { result, rerender } = renderHook(({ queries }) => useFirstAnswers(queries), {
      initialProps: { queries: [answered, pending] },
    });
    expect(result.current).toBe(false);
    rerender({ queries: [answered, answered] });
    expect(result.current).toBe(true);
  });

  it('does not wait for a retry: a first try that failed (offline) shows the screen at once', () => {
    const { result } = renderHook(() => useFirstAnswers([retrying, answered]));
    expect(result.current).toBe(true);
  });

  it('shows the screen after the cap when the server does not answer', () => {
    const { result } = renderHook(() => useFirstAnswers([pending]));
    act(() => {
      vi.advanceTimersByTime(FIRST_ANSWERS_CAP_MS - 1);
    });
    expect(result.current).toBe(false);
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(result.current).toBe(true);
  });

  it('once shown, stays shown when the answers are asked again (the cache cleared on sign-out)', () => {
    const { result, rerender } = renderHook(({ queries }) => useFirstAnswers(queries), {
      initialProps: { queries: [answered] },
    });
    rerender({ queries: [pending] });
    expect(result.current).toBe(true);
  });
});

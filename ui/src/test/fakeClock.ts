// Helpers for tests on vi.useFakeTimers(): let mocked responses arrive, or move the clock.
import { act } from '@testing-library/react';
import { vi } from 'vitest';

/** Lets the mocked server answer while the clock is fake. */
export async function settle(): Promise<void> {
  await advance(5);
}

/** Moves the fake clock on by `ms`, running what comes due inside act(). */
export async function advance(ms: number): Promise<void> {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

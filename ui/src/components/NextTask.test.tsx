import { act, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { NextTask } from './NextTask';

describe('NextTask', () => {
  it("draws the first signed-in screen one task after its frame, and every later one with it", async () => {
    vi.useFakeTimers();
    try {
      const first = render(
        <div>
          <h1>Frame</h1>
          <NextTask>
            <p>Screen</p>
          </NextTask>
        </div>,
      );
      expect(screen.getByRole('heading', { name: 'Frame' })).toBeTruthy();
      expect(screen.queryByText('Screen')).toBeNull();
      await act(() => vi.advanceTimersByTimeAsync(0));
      expect(screen.getByText('Screen')).toBeTruthy();
      first.unmount();

      render(
        <NextTask>
          <p>Next screen</p>
        </NextTask>,
      );
      expect(screen.getByText('Next screen')).toBeTruthy();
    } finally {
      vi.useRealTimers();
    }
  });
});

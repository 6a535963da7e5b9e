import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { testQueryClient } from '../test/queryClient';
import { NextTask, splitFirstScreen } from './NextTask';

describe('NextTask', () => {
  it("draws the first signed-in screen of a start one task after its frame, and every later one with it", async () => {
    vi.useFakeTimers();
    const client = testQueryClient();
    splitFirstScreen(client);
    const app = (children: ReactNode) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
    try {
      const first = render(
        app(<div>
          <h1>Frame</h1>
          <NextTask>
            <p>Screen</p>
          </NextTask>
        </div>),
      );
      expect(screen.getByRole('heading', { name: 'Frame' })).toBeTruthy();
      expect(screen.queryByText('Screen')).toBeNull();
      await act(() => vi.advanceTimersByTimeAsync(0));
      expect(screen.getByText('Screen')).toBeTruthy();
      first.unmount();

      render(
        app(
          <NextTask>
            <p>Next screen</p>
          </NextTask>,
        ),
      );
      expect(screen.getByText('Next screen')).toBeTruthy();
      // An app that did not ask for it (the tests' renderApp) draws its screen at once.
      render(
        <QueryClientProvider client={testQueryClient()}>
          <NextTask>
            <p>Unsplit</p>
          </NextTask>
        </QueryClientProvider>,
      );
      expect(screen.getByText('Unsplit')).toBeTruthy();
    } finally {
      vi.useRealTimers();
    }
  });
});

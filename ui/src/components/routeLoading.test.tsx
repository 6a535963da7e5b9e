import { act, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { RouteErrorBoundary } from './RouteErrorBoundary';
import { LOADING_NOTICE_DELAY_MS, RouteLoading } from './RouteLoading';

afterEach(() => {
  vi.useRealTimers();
});

describe('while a screen is on its way', () => {
  it('shows nothing at first, so a quick load does not flash, then says it is loading', () => {
    vi.useFakeTimers();
    render(<RouteLoading />);
    expect(screen.queryByRole('status')).toBeNull();
    act(() => {
      vi.advanceTimersByTime(LOADING_NOTICE_DELAY_MS - 1);
    });
    expect(screen.queryByRole('status')).toBeNull();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.getByRole('status').textContent).toBe('Loading...');
  });
});

function Unreachable(): never {
  throw new TypeError('Failed to fetch dynamically imported module: /assets/TodayScreen-gone.js');
}

describe('a screen that cannot be fetched', () => {
  it('says so in the chosen language and offers a reload, instead of a blank page', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await i18n.changeLanguage('de');
    render(
      <MemoryRouter initialEntries={['/today']}>
        <RouteErrorBoundary>
          <Unreachable />
        </RouteErrorBoundary>
      </MemoryRouter>,
    );
    expect(screen.getByRole('alert').textContent).toContain('Diese Seite konnte nicht geladen werden.');
    expect(screen.getByRole('button', { name: 'Neu laden' })).toBeTruthy();
  });
});

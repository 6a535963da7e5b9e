import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockMatchMedia } from '../test/fetchMock';
import { InstallBanner } from './InstallBanner';

const HOUR = 60 * 60 * 1000;
const TITLE = 'Install Pillbox';

function offerInstall(outcome: 'accepted' | 'dismissed' = 'accepted') {
  const event = new Event('beforeinstallprompt', { cancelable: true });
  const prompt = vi.fn(() => Promise.resolve());
  Object.assign(event, { prompt, userChoice: Promise.resolve({ outcome, platform: 'web' }) });
  act(() => {
    window.dispatchEvent(event);
  });
  return { event, prompt };
}

function advance(ms: number) {
  act(() => {
    vi.advanceTimersByTime(ms);
  });
}

const banner = () => screen.queryByRole('region', { name: TITLE });

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-11-20T12:00:00Z') });
  mockMatchMedia({ '(display-mode: standalone)': false });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('install banner', () => {
  it('appears 3 seconds after the browser offers installation, with the spec texts', () => {
    render(<InstallBanner />);
    const { event } = offerInstall();
    expect(event.defaultPrevented).toBe(true);

    advance(2999);
    expect(banner()).toBeNull();

    advance(1);
    expect(banner()).not.toBeNull();
    expect(screen.getByText(TITLE)).toBeTruthy();
    expect(
      screen.getByText(
        'Install our app for a better experience with offline access and quick access from your home screen',
      ),
    ).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Install App' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Not now' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Close' })).toBeTruthy();
  });

  it('stays hidden when it was dismissed less than 24 hours ago', () => {
    localStorage.setItem('installPromptDismissed', String(Date.now() - 23 * HOUR));
    render(<InstallBanner />);
    offerInstall();
    advance(10_000);
    expect(banner()).toBeNull();
  });

  it('comes back when the dismissal is more than 24 hours old', () => {
    localStorage.setItem('installPromptDismissed', String(Date.now() - 25 * HOUR));
    render(<InstallBanner />);
    offerInstall();
    advance(3000);
    expect(banner()).not.toBeNull();
  });

  it('never appears when the app already runs standalone', () => {
    mockMatchMedia({ '(display-mode: standalone)': true });
    render(<InstallBanner />);
    offerInstall();
    advance(10_000);
    expect(banner()).toBeNull();
  });

  it('never appears on iOS home-screen apps (navigator.standalone)', () => {
    Object.defineProperty(navigator, 'standalone', { value: true, configurable: true });
    try {
      render(<InstallBanner />);
      offerInstall();
      advance(10_000);
      expect(banner()).toBeNull();
    } finally {
      Reflect.deleteProperty(navigator, 'standalone');
    }
  });

  it('"Not now" hides it and stores the dismissal time', () => {
    render(<InstallBanner />);
    offerInstall();
    advance(3000);
    fireEvent.click(screen.getByRole('button', { name: 'Not now' }));
    expect(banner()).toBeNull();
    expect(localStorage.getItem('installPromptDismissed')).toBe(String(Date.now()));
  });

  it('the close icon hides it and stores the dismissal time', () => {
    render(<InstallBanner />);
    offerInstall();
    advance(3000);
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(banner()).toBeNull();
    expect(localStorage.getItem('installPromptDismissed')).toBe(String(Date.now()));
  });

  it('"Install App" shows the native prompt and hides once the user has chosen', async () => {
    render(<InstallBanner />);
    const { prompt } = offerInstall('accepted');
    advance(3000);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Install App' }));
      await Promise.resolve();
    });
    expect(prompt).toHaveBeenCalledTimes(1);
    expect(banner()).toBeNull();
  });

  it('also hides when the native prompt is dismissed', async () => {
    render(<InstallBanner />);
    const { prompt } = offerInstall('dismissed');
    advance(3000);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Install App' }));
      await Promise.resolve();
    });
    expect(prompt).toHaveBeenCalledTimes(1);
    expect(banner()).toBeNull();
  });

  it('hides when the app gets installed', () => {
    render(<InstallBanner />);
    offerInstall();
    advance(3000);
    act(() => {
      window.dispatchEvent(new Event('appinstalled'));
    });
    expect(banner()).toBeNull();
  });

  it('is translated', async () => {
    const { default: i18n } = await import('../i18n');
    await act(async () => {
      await i18n.changeLanguage('de');
    });
    render(<InstallBanner />);
    offerInstall();
    advance(3000);
    expect(screen.getByText('Pillbox installieren')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Nicht jetzt' })).toBeTruthy();
  });
});

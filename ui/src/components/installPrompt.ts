/** The event Chromium-based browsers fire when the app can be installed. */
export interface BeforeInstallPromptEvent extends Event {
  prompt: () => Promise<void>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed'; platform?: string }>;
}

export const INSTALL_DISMISSED_KEY = 'installPromptDismissed';
export const INSTALL_BANNER_DELAY_MS = 3000;
export const INSTALL_DISMISS_SUPPRESS_MS = 24 * 60 * 60 * 1000;

export function isStandalone(): boolean {
  const navigatorWithStandalone = navigator as Navigator & { standalone?: boolean };
  return (
    (typeof window.matchMedia === 'function' &&
      window.matchMedia('(display-mode: standalone)').matches) ||
    navigatorWithStandalone.standalone === true
  );
}

/** True when the banner was dismissed less than 24 hours ago. */
export function wasDismissedRecently(now = Date.now()): boolean {
  try {
    const stored = Number(localStorage.getItem(INSTALL_DISMISSED_KEY));
    return stored > 0 && now - stored < INSTALL_DISMISS_SUPPRESS_MS;
  } catch {
    return false;
  }
}

export function rememberDismissal(now = Date.now()): void {
  try {
    localStorage.setItem(INSTALL_DISMISSED_KEY, String(now));
  } catch {
    // Without storage the banner may come back next time; nothing else to do.
  }
}

import { useCallback, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import i18n from '../i18n';
import { loadSettings, saveSettings, type AppSettings } from './appSettings';
import { SettingsContext, type SettingsContextValue } from './SettingsContext';
import { DARK_SCHEME_QUERY, applyTheme, resolveTheme, systemPrefersDark } from './theme';

function subscribeToColorScheme(onChange: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => undefined;
  const query = window.matchMedia(DARK_SCHEME_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

export function SettingsProvider({ children }: { children: ReactNode }) {
  const [settings, setSettings] = useState<AppSettings>(loadSettings);
  // Follows the OS preference live, so `system` switches with it.
  const prefersDark = useSyncExternalStore(subscribeToColorScheme, systemPrefersDark, () => false);
  const resolvedTheme = resolveTheme(settings.theme, prefersDark);

  useEffect(() => {
    applyTheme(resolvedTheme);
  }, [resolvedTheme]);

  useEffect(() => {
    document.documentElement.lang = settings.language;
    // The language's texts are fetched first and it switches only then: the page never shows keys.
    if (i18n.language !== settings.language) void i18n.changeLanguage(settings.language);
  }, [settings.language]);

  const updateSettings = useCallback((changes: Partial<AppSettings>) => {
    setSettings((current) => {
      // A language set here (in Settings, or the account's) is a choice: kept, and no longer the browser's.
      const next = { ...current, ...changes, languageChosen: current.languageChosen || changes.language !== undefined };
      saveSettings(next);
      return next;
    });
  }, []);

  const value = useMemo<SettingsContextValue>(
    () => ({ settings, resolvedTheme, updateSettings }),
    [settings, resolvedTheme, updateSettings],
  );

  return <SettingsContext.Provider value={value}>{children}</SettingsContext.Provider>;
}

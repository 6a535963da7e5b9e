import { createContext, useContext } from 'react';
import type { AppSettings } from './appSettings';
import type { ResolvedTheme } from './theme';

export interface SettingsContextValue {
  settings: AppSettings;
  /** The theme actually shown: `system` resolved through the OS preference. */
  resolvedTheme: ResolvedTheme;
  updateSettings: (changes: Partial<AppSettings>) => void;
}

export const SettingsContext = createContext<SettingsContextValue | null>(null);

export function useAppSettings(): SettingsContextValue {
  const value = useContext(SettingsContext);
  if (!value) throw new Error('useAppSettings must be used inside <SettingsProvider>');
  return value;
}

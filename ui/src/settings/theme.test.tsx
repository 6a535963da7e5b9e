import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { mockMatchMedia } from '../test/fetchMock';
import { useAppSettings } from './SettingsContext';
import { SettingsProvider } from './SettingsProvider';

const DARK_QUERY = '(prefers-color-scheme: dark)';

function ThemeButtons() {
  const { settings, updateSettings } = useAppSettings();
  return (
    <div>
      <p>theme: {settings.theme}</p>
      <button onClick={() => updateSettings({ theme: 'light' })}>Light</button>
      <button onClick={() => updateSettings({ theme: 'dark' })}>Dark</button>
      <button onClick={() => updateSettings({ theme: 'system' })}>System</button>
    </div>
  );
}

function renderWithSettings() {
  return render(
    <SettingsProvider>
      <ThemeButtons />
    </SettingsProvider>,
  );
}

const root = () => document.documentElement;
const themeColor = () =>
  document.querySelector<HTMLMetaElement>('meta[name="theme-color"]')?.content;

beforeEach(() => {
  document.head.innerHTML = '<meta name="theme-color" content="#ffffff">';
});

describe('theme', () => {
  it('follows the system preference live when set to system (the default)', () => {
    const media = mockMatchMedia({ [DARK_QUERY]: false });
    renderWithSettings();
    expect(screen.getByText('theme: system')).toBeTruthy();
    expect(root().classList.contains('light')).toBe(true);
    expect(themeColor()).toBe('#ffffff');

    act(() => media.set(DARK_QUERY, true));
    expect(root().classList.contains('dark')).toBe(true);
    expect(root().classList.contains('light')).toBe(false);
    expect(themeColor()).toBe('#1f2937');

    act(() => media.set(DARK_QUERY, false));
    expect(root().classList.contains('light')).toBe(true);
    expect(themeColor()).toBe('#ffffff');
  });

  it('lets an explicit choice override the system and remembers it', async () => {
    const media = mockMatchMedia({ [DARK_QUERY]: true });
    renderWithSettings();
    expect(root().classList.contains('dark')).toBe(true);

    await userEvent.click(screen.getByRole('button', { name: 'Light' }));
    expect(root().classList.contains('light')).toBe(true);
    expect(themeColor()).toBe('#ffffff');
    act(() => media.set(DARK_QUERY, true));
    expect(root().classList.contains('light')).toBe(true);
    expect(JSON.parse(localStorage.getItem('dosage_app_settings') ?? '{}')).toMatchObject({
      theme: 'light',
    });

    act(() => media.set(DARK_QUERY, false));
    await userEvent.click(screen.getByRole('button', { name: 'Dark' }));
    expect(root().classList.contains('dark')).toBe(true);
    expect(themeColor()).toBe('#1f2937');
  });

  it('reads the stored theme and merges stored settings over the defaults', () => {
    mockMatchMedia({ [DARK_QUERY]: false });
    localStorage.setItem('dosage_app_settings', JSON.stringify({ theme: 'dark', language: 'de' }));
    renderWithSettings();
    expect(root().classList.contains('dark')).toBe(true);
    expect(root().lang).toBe('de');
  });

  it('falls back to the defaults when the stored settings are corrupt', () => {
    mockMatchMedia({ [DARK_QUERY]: true });
    localStorage.setItem('dosage_app_settings', '{not json');
    renderWithSettings();
    expect(screen.getByText('theme: system')).toBeTruthy();
    expect(root().classList.contains('dark')).toBe(true);
    expect(root().lang).toBe('en');
  });
});

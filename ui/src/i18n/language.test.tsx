import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SETTINGS_STORAGE_KEY } from '../settings/appSettings';
import { mockFetch } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the language before sign-in', () => {
  it("is the browser's: a German browser shows the sign-in page in German", async () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['de-DE', 'de', 'en-US']);
    mockFetch({});
    renderApp('/login');
    expect(await screen.findByRole('heading', { name: 'Willkommen zurück' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Anmelden' })).toBeTruthy();
    expect(document.documentElement.lang).toBe('de');
  });

  it('skips languages Pillbox does not speak', async () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['pt-BR', 'es-MX']);
    mockFetch({});
    renderApp('/login');
    expect(await screen.findByRole('heading', { name: 'Hola de nuevo' })).toBeTruthy();
  });

  it('is the one the person chose on this device, whatever the browser says', async () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['de-DE']);
    localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify({ language: 'fr' }));
    mockFetch({});
    renderApp('/login');
    expect(await screen.findByRole('heading', { name: 'Bon retour' })).toBeTruthy();
  });
});

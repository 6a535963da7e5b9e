import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, requestUrl, sessionRoutes } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';

const USER = { id: 5, email: 'alex@example.com', firstName: null, lastName: null };

beforeEach(() => {
  localStorage.setItem('token', 'token-1');
  localStorage.setItem('user', JSON.stringify(USER));
});

function serverWithVersion(version: () => Response | Promise<Response>) {
  return mockFetch({
    'GET /api/version': version,
    ...sessionRoutes(USER),
  });
}

async function renderSignedIn(path: string) {
  renderApp(path);
  const sidebar = await screen.findByTestId('sidebar');
  await within(sidebar).findByText(USER.email);
  return sidebar;
}

const navLinks = (sidebar: HTMLElement) =>
  within(within(sidebar).getByRole('navigation', { name: 'Main navigation' })).getAllByRole('link');

describe('sidebar', () => {
  it('has six entries (People for the care circle), the user initial and e-mail, sign out and the server version', async () => {
    serverWithVersion(() => jsonResponse({ success: true, data: { version: '2.3.4' } }));
    const sidebar = await renderSignedIn('/medications');

    expect(navLinks(sidebar).map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Medications', '/medications'],
      ['Today', '/today'],
      ['Notifications', '/notifications'],
      ['History', '/history'],
      ['People', '/people'],
      ['Settings', '/settings'],
    ]);
    expect(within(sidebar).getByTestId('user-initial').textContent).toBe('A');
    expect(within(sidebar).getByText('alex@example.com')).toBeTruthy();
    expect(within(sidebar).getByRole('button', { name: 'Sign Out' })).toBeTruthy();
    expect(within(sidebar).getByText('Pillbox', { selector: '.version-product' })).toBeTruthy();
    expect((await within(sidebar).findByText('2.3.4')).dataset.testid).toBe('version-label');
  });

  it('shows Medications active on /', async () => {
    serverWithVersion(() => jsonResponse({ success: true, data: { version: '1' } }));
    const sidebar = await renderSignedIn('/');
    const current = navLinks(sidebar).filter((link) => link.getAttribute('aria-current') === 'page');
    expect(current.map((link) => link.textContent)).toEqual(['Medications']);
    expect(screen.getByRole('heading', { name: 'Medications', level: 1 })).toBeTruthy();
  });

  it('moves the active entry with navigation', async () => {
    serverWithVersion(() => jsonResponse({ success: true, data: { version: '1' } }));
    const sidebar = await renderSignedIn('/medications');
    await userEvent.click(within(sidebar).getByRole('link', { name: 'History' }));
    expect(screen.getByTestId('location').textContent).toBe('/history');
    expect(within(sidebar).getByRole('link', { name: 'History' }).getAttribute('aria-current')).toBe('page');
    expect(within(sidebar).getByRole('link', { name: 'Medications' }).getAttribute('aria-current')).toBeNull();
  });

  it('keeps the version label at dev when the version cannot be fetched', async () => {
    serverWithVersion(() => Promise.reject(new TypeError('offline')));
    const sidebar = await renderSignedIn('/today');
    expect(within(sidebar).getByTestId('version-label').textContent).toBe('dev');
  });

  it('uppercases the initial of the e-mail', async () => {
    const lower = { ...USER, email: 'zoe@example.com' };
    mockFetch({
      'GET /api/version': () => jsonResponse({ success: true, data: { version: '1' } }),
      ...sessionRoutes(lower),
    });
    renderApp('/');
    expect((await screen.findByTestId('user-initial')).textContent).toBe('Z');
  });

  it('shows the display name once set, with the e-mail under it, and the initial of the name', async () => {
    const named = { ...USER, firstName: 'Zoe', lastName: ' Lovelace ' };
    mockFetch({
      'GET /api/version': () => jsonResponse({ success: true, data: { version: '1' } }),
      ...sessionRoutes(named),
    });
    localStorage.setItem('user', JSON.stringify(named));
    renderApp('/medications');
    const sidebar = await screen.findByTestId('sidebar');
    expect((await within(sidebar).findByTestId('user-name')).textContent).toBe('Zoe Lovelace');
    expect(within(sidebar).getByTestId('user-email').textContent).toBe(USER.email);
    expect(within(sidebar).getByTestId('user-initial').textContent).toBe('Z');
  });

  it('shows only the e-mail while no name is set', async () => {
    serverWithVersion(() => jsonResponse({ success: true, data: { version: '1' } }));
    const sidebar = await renderSignedIn('/medications');
    expect(within(sidebar).queryByTestId('user-name')).toBeNull();
    expect(within(sidebar).getByTestId('user-email').textContent).toBe(USER.email);
  });

  it('Sign Out ends the session on the server, clears the stored session and goes to /login', async () => {
    const fetchMock = serverWithVersion(() => jsonResponse({ success: true, data: { version: '1' } }));
    const sidebar = await renderSignedIn('/settings');
    const token = localStorage.getItem('token');
    await userEvent.click(within(sidebar).getByRole('button', { name: 'Sign Out' }));
    expect(screen.getByTestId('location').textContent).toBe('/login');
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
    expect(screen.queryByTestId('sidebar')).toBeNull();
    const logouts = fetchMock.mock.calls.filter(([url]) => requestUrl(url) === '/api/auth/logout');
    expect(logouts.map(([, init]) => [init?.method, (init?.headers as Record<string, string>).Authorization])).toEqual([
      ['POST', `Bearer ${token}`],
    ]);
  });

  it('still signs out to /login when the browser storage fails', async () => {
    serverWithVersion(() => jsonResponse({ success: true, data: { version: '1' } }));
    const sidebar = await renderSignedIn('/settings');
    vi.spyOn(Storage.prototype, 'removeItem').mockImplementation(() => {
      throw new Error('storage broken');
    });
    await userEvent.click(within(sidebar).getByRole('button', { name: 'Sign Out' }));
    expect(screen.getByTestId('location').textContent).toBe('/login');
    expect(screen.queryByTestId('sidebar')).toBeNull();
  });
});

describe('drawer', () => {
  const isOpen = () => screen.getByTestId('sidebar').classList.contains('is-open');

  it('opens from the menu button and closes with Escape, the backdrop, the close button or navigation', async () => {
    serverWithVersion(() => jsonResponse({ success: true, data: { version: '1' } }));
    await renderSignedIn('/medications');
    const menuButton = screen.getByTestId('menu-button');
    expect(menuButton.getAttribute('aria-label')).toBe('Open menu');
    expect(isOpen()).toBe(false);

    await userEvent.click(menuButton);
    expect(isOpen()).toBe(true);
    expect(menuButton.getAttribute('aria-expanded')).toBe('true');
    act(() => {
      fireEvent.keyDown(document, { key: 'Escape' });
    });
    expect(isOpen()).toBe(false);

    await userEvent.click(menuButton);
    await userEvent.click(screen.getByTestId('drawer-backdrop'));
    expect(isOpen()).toBe(false);

    await userEvent.click(menuButton);
    await userEvent.click(screen.getByRole('button', { name: 'Close menu' }));
    expect(isOpen()).toBe(false);

    await userEvent.click(menuButton);
    await userEvent.click(screen.getByRole('link', { name: 'Today' }));
    expect(screen.getByTestId('location').textContent).toBe('/today');
    expect(isOpen()).toBe(false);
  });
});

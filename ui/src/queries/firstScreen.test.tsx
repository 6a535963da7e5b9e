import type { QueryClient } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App, preloadFirstScreen } from '../App';
import { deferred, jsonResponse, requestUrl, type Route } from '../test/fetchMock';
import { medicationJson, medsServer, ok, requestsTo, signInForMeds, USER } from '../test/medications';
import { testQueryClient } from '../test/queryClient';
import { START_ANSWER_MS } from './firstScreen';

afterEach(() => {
  vi.useRealTimers();
});

const aspirin = medicationJson({ id: 3, name: 'Aspirin', escalation: null });
const dose = {
  medication_id: 3, name: 'Aspirin', color: 'blue', icon: 'pill-symbolic', unit: 'tablets', quantity: 2,
  scheduled_time: '2026-11-22T08:00:00Z', local_time: '08:00', status: 'due', history_id: null, reminder_id: 40,
};
const FIRST = ['/api/medications/today', '/api/medications', '/api/people'];

/** A server whose session check waits until the test lets it answer. */
function heldServer(routes: Record<string, Route> = {}) {
  const me = deferred<Response>();
  const fetchMock = medsServer({
    'GET /api/auth/me': () => me.promise,
    'GET /api/medications/today': () => ok({ date: '2026-11-22', doses: [dose] }),
    'GET /api/medications': () => ok([aspirin]),
    'GET /api/people': () => ok([]),
    ...routes,
  });
  return { fetchMock, answerMe: () => me.resolve(jsonResponse({ success: true, data: USER })) };
}

/** The app's start as main.tsx makes it: the first screen's files and data, then the render. */
function start(path: string, meanwhile?: (client: QueryClient) => Promise<void>) {
  const client = testQueryClient();
  preloadFirstScreen(path, true, client);
  const draw = () => {
    render(
      <MemoryRouter initialEntries={[path]}>
        <App queryClient={client} />
      </MemoryRouter>,
    );
  };
  if (meanwhile) return meanwhile(client).then(draw);
  draw();
  return Promise.resolve();
}

describe("the first screen's data comes with the start", () => {
  it("asks for Today's doses, the medications and the people beside the session check, and draws them without asking again", async () => {
    signInForMeds();
    const { fetchMock, answerMe } = heldServer();
    void start('/today');
    // The session check has not answered: the loading screen, and the data already asked for.
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/auth/me')).toHaveLength(1));
    for (const path of FIRST) expect(requestsTo(fetchMock, 'GET', path)).toHaveLength(1);
    expect(screen.queryByRole('heading', { name: 'Today', level: 1 })).toBeNull();

    answerMe();
    const section = await screen.findByRole('region', { name: 'Scheduled today' });
    const row = within(section).getByTestId('today-dose');
    expect(row.textContent).toContain('Aspirin');
    expect(within(row).getByTestId('today-dose-status').textContent).toBe('Due');
    expect(await screen.findByTestId('today-medication')).toBeTruthy();
    for (const path of FIRST) expect(requestsTo(fetchMock, 'GET', path)).toHaveLength(1);
  });

  it('sends the session check with them, before the app first renders, and the app uses its answer', async () => {
    signInForMeds();
    const { fetchMock, answerMe } = heldServer();
    await start('/today', () => {
      // Not rendered yet: the check is out beside the screen's data.
      expect(requestsTo(fetchMock, 'GET', '/api/auth/me')).toHaveLength(1);
      for (const path of FIRST) expect(requestsTo(fetchMock, 'GET', path)).toHaveLength(1);
      return Promise.resolve();
    });
    expect(screen.queryByRole('heading', { name: 'Today', level: 1 })).toBeNull();
    answerMe();
    expect(await screen.findByRole('region', { name: 'Scheduled today' })).toBeTruthy();
    expect(requestsTo(fetchMock, 'GET', '/api/auth/me')).toHaveLength(1);
  });

  it('signs out when the session check the start sent is refused', async () => {
    signInForMeds();
    medsServer({
      'GET /api/auth/me': () => jsonResponse({ success: false, code: 'session_expired', message: 'Invalid token' }, 401),
    });
    await start('/today');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(localStorage.getItem('token')).toBeNull();
  });

  it("asks for everyone's lists: once the people are in, each cared-for person's, and Today shows theirs without asking again", async () => {
    signInForMeds();
    const mum = { id: 5, name: 'Mum', is_self: false, archived: false, role: 'carer', owner_name: 'Sam', carer_id: 40, home_assistant: false, home_assistant_available: true, created_at: '' };
    const pat = { ...mum, id: 1, name: 'Pat', is_self: true, role: 'owner', owner_name: 'Pat', carer_id: null };
    const digoxin = medicationJson({ id: 6, name: 'Digoxin', person_id: 5, escalation: null });
    const { fetchMock, answerMe } = heldServer({
      'GET /api/people': () => ok([pat, mum]),
      'GET /api/medications': (_init, url) => ok(url.searchParams.get('person_id') === '5' ? [digoxin] : [aspirin]),
    });
    void start('/today');
    const lists = () => requestsTo(fetchMock, 'GET', '/api/medications').map(([url]) => new URL(requestUrl(url), 'http://x').search);
    await waitFor(() => expect(lists()).toEqual(['', '?person_id=5']));
    expect(requestsTo(fetchMock, 'GET', '/api/auth/me')).toHaveLength(1);

    answerMe();
    await waitFor(() =>
      expect(screen.getAllByTestId('today-medication').map((card) => card.textContent).join(' ')).toContain('Digoxin'),
    );
    expect(lists()).toEqual(['', '?person_id=5']);
  });

  it('asks for the person chosen in the top bar', async () => {
    signInForMeds();
    localStorage.setItem('pillbox_person', JSON.stringify({ [String(USER.id)]: 5 }));
    const { fetchMock } = heldServer();
    void start('/today');
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/medications/today')).toHaveLength(1));
    const asked = (path: string) => requestsTo(fetchMock, 'GET', path).map(([url]) => new URL(requestUrl(url), 'http://x').search);
    expect(asked('/api/medications/today')).toEqual(['?person_id=5']);
    expect(asked('/api/medications')).toEqual(['?person_id=5']);
  });

  it('is asked again when something changed it before the screen opened', async () => {
    signInForMeds();
    const { fetchMock, answerMe } = heldServer();
    await start('/today', async (client) => {
      await waitFor(() => expect(client.getQueryData(['today', 'all'])).toBeTruthy());
      // A dose logged meanwhile (from another screen of this app) invalidates the day.
      await client.invalidateQueries({ queryKey: ['today'] });
    });
    answerMe();
    await screen.findByRole('region', { name: 'Scheduled today' });
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/medications/today')).toHaveLength(2));
    expect(requestsTo(fetchMock, 'GET', '/api/medications')).toHaveLength(1);
  });

  it('is asked again when the screen opens long after the start asked', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    signInForMeds();
    const { fetchMock, answerMe } = heldServer();
    void start('/today');
    await vi.waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/medications/today')).toHaveLength(1));
    vi.advanceTimersByTime(START_ANSWER_MS + 1);
    answerMe();
    await screen.findByRole('region', { name: 'Scheduled today' });
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/medications/today')).toHaveLength(2));
  });

  it('drops what it asked for when the session check ends signed out', async () => {
    signInForMeds();
    medsServer({
      // Answers a worker could still give from its copy while the server refuses the token.
      'GET /api/medications/today': () => ok({ date: '2026-11-22', doses: [dose] }),
      'GET /api/medications': () => ok([aspirin]),
      'GET /api/people': () => ok([]),
      'GET /api/auth/me': () => jsonResponse({ success: false, code: 'session_expired', message: 'Invalid token' }, 401),
    });
    let cache: QueryClient | undefined;
    await start('/today', async (client) => {
      cache = client;
      await waitFor(() => expect(client.getQueryData(['today', 'all'])).toBeTruthy());
    });
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    await waitFor(() => expect(cache?.getQueryData(['today', 'all'])).toBeUndefined());
    expect(cache?.getQueryData(['medications', 'list', 'all'])).toBeUndefined();
  });

  it('asks nothing of a screen it does not know, and nothing without a stored user', async () => {
    signInForMeds();
    const { fetchMock } = heldServer();
    void start('/history');
    localStorage.removeItem('user');
    const client = testQueryClient();
    preloadFirstScreen('/today', true, client);
    // Each start checks its session (the token is still stored), and asks for no data.
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/auth/me')).toHaveLength(2));
    for (const path of FIRST) expect(requestsTo(fetchMock, 'GET', path)).toHaveLength(0);
  });
});

import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App, preloadFirstScreen } from '../App';
import { splitFirstScreen } from '../components/NextTask';
import { medicationJson, medsServer, ok, requestsTo, signInForMeds } from '../test/medications';
import { testQueryClient } from '../test/queryClient';
import {
  firstScreenCommitted,
  holdBackgroundRequests,
  HOLD_AT_MOST_MS,
  useBackgroundRequestsAllowed,
} from './backgroundRequests';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/**
 * The browser's frames, held: `frame()` runs the next one (and a task after it); `paint()` runs
 * two, the frame that draws the screen and the next, by which the first has been shown.
 */
function heldFrames() {
  const frames: FrameRequestCallback[] = [];
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => frames.push(callback));
  const frame = async () => {
    await act(async () => {
      for (const callback of frames.splice(0)) callback(performance.now());
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
  };
  const paint = async () => {
    await frame();
    await frame();
  };
  return { frame, paint };
}

function Allowed() {
  return <p>{useBackgroundRequestsAllowed() ? 'allowed' : 'held'}</p>;
}

/** Renders, for an app's query client, whether its background requests may go out now. */
function showAllowed(client: QueryClient): QueryClient {
  render(
    <QueryClientProvider client={client}>
      <Allowed />
    </QueryClientProvider>,
  );
  return client;
}

/** A start's query client, its background requests held, and what says whether they may go. */
function heldStart() {
  const client = testQueryClient();
  holdBackgroundRequests(client);
  return showAllowed(client);
}

/** A signed-in start at Today as main.tsx makes it, on a server with Aspirin; its fetch mock. */
function startAtToday() {
  signInForMeds();
  const aspirin = medicationJson({ id: 3, name: 'Aspirin', escalation: null });
  const fetchMock = medsServer({
    'GET /api/medications/today': () => ok({ date: '2026-11-22', doses: [] }),
    'GET /api/medications': () => ok([aspirin]),
    'GET /api/people': () => ok([]),
    'GET /api/settings': () => ok({ timezone: 'UTC', language: 'en' }),
  });
  const client = testQueryClient();
  preloadFirstScreen('/today', true, client);
  splitFirstScreen(client);
  render(
    <MemoryRouter initialEntries={['/today']}>
      <App queryClient={client} />
    </MemoryRouter>,
  );
  return fetchMock;
}

describe('the requests a start holds back', () => {
  it('are allowed at once where no start holds them (a later page, a test)', () => {
    showAllowed(testQueryClient());
    expect(screen.getByText('allowed')).toBeTruthy();
  });

  it('go out once the first screen has been committed and painted', async () => {
    const { frame } = heldFrames();
    const client = heldStart();
    expect(screen.getByText('held')).toBeTruthy();
    firstScreenCommitted(client);
    // Committed, not yet painted.
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(screen.getByText('held')).toBeTruthy();
    // Drawn in the next frame, not yet on the screen: the browser shows it by the frame after.
    await frame();
    expect(screen.getByText('held')).toBeTruthy();
    await frame();
    expect(screen.getByText('allowed')).toBeTruthy();
  });

  it('go out after a few seconds at most when no signed-in screen is painted', async () => {
    vi.useFakeTimers();
    heldStart();
    await act(() => vi.advanceTimersByTimeAsync(HOLD_AT_MOST_MS - 1));
    expect(screen.getByText('held')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(screen.getByText('allowed')).toBeTruthy();
  });

  it("at a signed-in start at Today: the session's refresh, the settings and the version are asked after Today is painted, not beside its data", async () => {
    const { paint } = heldFrames();
    const fetchMock = startAtToday();
    const card = await screen.findByTestId('today-medication');
    expect(within(card).getByText('Aspirin')).toBeTruthy();
    const background = () => ({
      refresh: requestsTo(fetchMock, 'POST', '/api/auth/refresh').length,
      settings: requestsTo(fetchMock, 'GET', '/api/settings').length,
      version: requestsTo(fetchMock, 'GET', '/api/version').length,
    });
    expect(requestsTo(fetchMock, 'GET', '/api/auth/me')).toHaveLength(1);
    expect(background()).toEqual({ refresh: 0, settings: 0, version: 0 });

    await paint();
    // The appearance sync and the time-zone question share one request.
    await waitFor(() => expect(background()).toEqual({ refresh: 1, settings: 1, version: 1 }));
  });

  it('are not held at a signed-in start at a page outside the signed-in frame (a take link, the privacy policy)', () => {
    signInForMeds();
    medsServer({});
    const client = testQueryClient();
    preloadFirstScreen('/privacy-policy', true, client);
    showAllowed(client);
    expect(screen.getByText('allowed')).toBeTruthy();
  });

  it('refreshes only the session still stored once Today is painted, not one replaced meanwhile', async () => {
    const { paint } = heldFrames();
    const fetchMock = startAtToday();
    await screen.findByTestId('today-medication');
    // Signed out and in again in another tab while the refresh waited.
    localStorage.setItem('token', 'another-session');
    await paint();
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/version')).toHaveLength(1));
    expect(requestsTo(fetchMock, 'POST', '/api/auth/refresh')).toHaveLength(0);
    expect(localStorage.getItem('token')).toBe('another-session');
  });
});


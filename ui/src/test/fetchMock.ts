import { vi } from 'vitest';
import units from './fixtures/units.json';

/** A mocked answer; `url` carries the query string (e.g. `?person_id=`). */
export type Route = (init: RequestInit | undefined, url: URL) => Response | Promise<Response>;

export function requestUrl(input: RequestInfo | URL): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** The JSON body a mocked fetch call sent. */
export function sentJson(init: RequestInit | undefined): unknown {
  return typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
}

export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** What every server answers unless a test says otherwise: the unit catalogue (the real answer). */
const SERVER_ROUTES: Record<string, Route> = {
  'GET /api/units': () => jsonResponse(units),
};

/**
 * Replaces global fetch with one that answers by "METHOD path" (e.g. "GET /api/version").
 * Unknown requests answer a JSON 404 like the server's API fallback.
 */
export function mockFetch(routes: Record<string, Route>) {
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(requestUrl(input), 'http://localhost');
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    const route = routes[key] ?? SERVER_ROUTES[key];
    if (!route) return jsonResponse({ success: false, message: 'Not found', code: 'not_found' }, 404);
    return route(init, url);
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

/** A promise with its resolve/reject handles, to hold a response back. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A controllable `window.matchMedia`: `set(query, matches)` fires change listeners. */
export function mockMatchMedia(initial: Record<string, boolean> = {}) {
  const state = new Map(Object.entries(initial));
  const listeners = new Map<string, Set<(event: MediaQueryListEvent) => void>>();
  const matchMedia = vi.fn((query: string): MediaQueryList => {
    const set = listeners.get(query) ?? new Set();
    listeners.set(query, set);
    const list = {
      media: query,
      get matches() {
        return state.get(query) ?? false;
      },
      onchange: null,
      addEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => {
        set.add(listener);
      },
      removeEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => {
        set.delete(listener);
      },
      addListener: (listener: (event: MediaQueryListEvent) => void) => {
        set.add(listener);
      },
      removeListener: (listener: (event: MediaQueryListEvent) => void) => {
        set.delete(listener);
      },
      dispatchEvent: () => true,
    };
    return list as unknown as MediaQueryList;
  });
  vi.stubGlobal('matchMedia', matchMedia);
  return {
    set(query: string, matches: boolean) {
      state.set(query, matches);
      for (const listener of listeners.get(query) ?? []) {
        listener({ matches, media: query } as MediaQueryListEvent);
      }
    },
  };
}

/**
 * What a server that accepts the stored token answers at start-up: the profile, then a
 * fresh token (the app refreshes its token on every start).
 */
export function sessionRoutes(
  user: { id: number | string; email: string },
  freshToken = 'refreshed-token',
): Record<string, Route> {
  return {
    'GET /api/auth/me': () => jsonResponse({ success: true, data: user }),
    'POST /api/auth/refresh': () => jsonResponse({ success: true, data: { user, token: freshToken } }),
  };
}

import { QueryClientProvider, type QueryClient, type QueryKey } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NETWORK_ERROR_MESSAGE } from '../api/client';
import type { User } from '../api';
import { AuthContext, type AuthContextValue } from '../auth/AuthContext';
import { testQueryClient } from '../test/queryClient';
import { doseRecorded, medicationChanged, remindersChanged, stockChanged } from './invalidate';
import { queryKeys } from './keys';
import { SessionCacheGuard } from './QueryProvider';
import { shouldRetry } from './queryClient';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('retries', () => {
  const network = new Error(NETWORK_ERROR_MESSAGE);

  it('tries a request that never got through, or a server that faltered, twice more', () => {
    expect(shouldRetry(0, network)).toBe(true);
    expect(shouldRetry(1, network)).toBe(true);
    expect(shouldRetry(2, network)).toBe(false);
    expect(shouldRetry(0, new ApiError('Internal server error', 500, null))).toBe(true);
    expect(shouldRetry(0, new ApiError('Bad gateway', 502, null))).toBe(true);
  });

  it('never asks again after a 4xx: the server has answered', () => {
    for (const status of [400, 401, 403, 404, 409, 413, 429]) {
      expect(shouldRetry(0, new ApiError('refused', status, null))).toBe(false);
    }
  });

  it('does not retry an answer it could not read, nor while the browser is offline', () => {
    expect(shouldRetry(0, new Error('Unexpected medication format'))).toBe(false);
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    expect(shouldRetry(0, network)).toBe(false);
  });
});

/** Every query the app keeps, filled, so a test can see which ones a change made stale. */
function filledClient(): QueryClient {
  const client = testQueryClient();
  for (const key of allKeys()) client.setQueryData(key, { filled: true });
  return client;
}

function allKeys(): QueryKey[] {
  return [
    queryKeys.medicationList,
    queryKeys.inventory(3),
    queryKeys.ledger(3),
    queryKeys.inventory(4),
    queryKeys.ledger(4),
    queryKeys.today,
    queryKeys.historyPage(''),
    queryKeys.adherence,
    queryKeys.reportFor({ from: '2026-11-01', to: '2026-11-22' }),
    queryKeys.scheduledNotifications,
    queryKeys.deliveries,
    queryKeys.globalPreferences,
    queryKeys.medicationPreferences(3),
    queryKeys.notificationSettings,
    queryKeys.timeZone,
    queryKeys.twoFactorStatus,
    queryKeys.dataSettings,
    queryKeys.backups,
    queryKeys.version,
  ];
}

function staleKeys(client: QueryClient): string[] {
  return allKeys()
    .filter((key) => client.getQueryState(key)?.isInvalidated)
    .map((key) => JSON.stringify(key));
}

const names = (keys: QueryKey[]) => keys.map((key) => JSON.stringify(key));

describe('invalidation', () => {
  it('a logged dose makes stale the stock, today, history, adherence, report and reminders', () => {
    const client = filledClient();
    doseRecorded(client);
    expect(staleKeys(client)).toEqual(
      names([
        queryKeys.medicationList,
        queryKeys.inventory(3),
        queryKeys.ledger(3),
        queryKeys.inventory(4),
        queryKeys.ledger(4),
        queryKeys.today,
        queryKeys.historyPage(''),
        queryKeys.adherence,
        queryKeys.reportFor({ from: '2026-11-01', to: '2026-11-22' }),
        queryKeys.scheduledNotifications,
      ]),
    );
  });

  it('a stock change makes stale only its ledger, the report and the reminders (the answer is the stock)', () => {
    const client = filledClient();
    stockChanged(client, 3);
    expect(staleKeys(client)).toEqual(
      names([
        queryKeys.ledger(3),
        queryKeys.reportFor({ from: '2026-11-01', to: '2026-11-22' }),
        queryKeys.scheduledNotifications,
      ]),
    );
  });

  it('an edited medication leaves the list (it takes the answer) and other medications alone', () => {
    const client = filledClient();
    medicationChanged(client, 3);
    const stale = staleKeys(client);
    expect(stale).not.toContain(JSON.stringify(queryKeys.medicationList));
    expect(stale).not.toContain(JSON.stringify(queryKeys.inventory(4)));
    expect(stale).toContain(JSON.stringify(queryKeys.inventory(3)));
    expect(stale).toContain(JSON.stringify(queryKeys.today));
    expect(stale).toContain(JSON.stringify(queryKeys.deliveries));
    expect(stale).toContain(JSON.stringify(queryKeys.medicationPreferences(3)));
    expect(stale).not.toContain(JSON.stringify(queryKeys.twoFactorStatus));
  });

  it('changed reminder preferences make stale the reminders and the delivery warnings (the list and Today), not the history', () => {
    const client = filledClient();
    remindersChanged(client);
    expect(staleKeys(client)).toEqual(
      names([
        queryKeys.medicationList,
        queryKeys.today,
        queryKeys.scheduledNotifications,
        queryKeys.globalPreferences,
        queryKeys.medicationPreferences(3),
        queryKeys.notificationSettings,
      ]),
    );
  });
});

function authAs(user: User | null): AuthContextValue {
  const nothing = () => undefined;
  return {
    user,
    token: user ? 'token' : null,
    isAuthenticated: user !== null,
    isLoading: false,
    notice: null,
    error: null,
    login: () => Promise.reject(new Error('not in this test')),
    loginWithCode: () => Promise.reject(new Error('not in this test')),
    loginWithPasskey: () => Promise.reject(new Error('not in this test')),
    loginWithOidcCode: () => Promise.reject(new Error('not in this test')),
    loginWithOidcLink: () => Promise.reject(new Error('not in this test')),
    register: () => Promise.reject(new Error('not in this test')),
    logout: nothing,
    clearError: nothing,
    replaceToken: nothing,
    updateUser: nothing,
  };
}

describe('the cache and the session', () => {
  function guarded(client: QueryClient, user: User | null) {
    return (
      <QueryClientProvider client={client}>
        <AuthContext.Provider value={authAs(user)}>
          <SessionCacheGuard />
        </AuthContext.Provider>
      </QueryClientProvider>
    );
  }

  it("drops one person's data when they sign out, so the next person never sees it", () => {
    const client = testQueryClient();
    const alice = { id: 1, email: 'alice@example.org' };
    const { rerender } = render(guarded(client, alice));
    client.setQueryData(queryKeys.medicationList, [{ id: 3, name: 'Alice’s aspirin' }]);

    rerender(guarded(client, { ...alice, firstName: 'Alice' }));
    expect(client.getQueryData(queryKeys.medicationList)).toBeDefined();

    rerender(guarded(client, null));
    expect(client.getQueryData(queryKeys.medicationList)).toBeUndefined();

    rerender(guarded(client, { id: 2, email: 'bob@example.org' }));
    client.setQueryData(queryKeys.medicationList, []);
    rerender(guarded(client, { id: 1, email: 'alice@example.org' }));
    expect(client.getQueryData(queryKeys.medicationList)).toBeUndefined();
  });
});

// Whether the app is working from what it had: the last call could not reach the server, or
// the service worker answered from its copy (header OFFLINE_HEADER). Any answer from the
// server itself ends it. Screens show the offline notice from this.
import { useSyncExternalStore } from 'react';

/** Set by the service worker on an answer it served from its cache. */
export const OFFLINE_HEADER = 'X-Pillbox-Offline';

let offline = false;
const listeners = new Set<() => void>();

export function setOffline(value: boolean): void {
  if (offline === value) return;
  offline = value;
  for (const listener of listeners) listener();
}

export function isOffline(): boolean {
  return offline;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const online = () => setOffline(false);
  const gone = () => setOffline(true);
  window.addEventListener('online', online);
  window.addEventListener('offline', gone);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('online', online);
    window.removeEventListener('offline', gone);
  };
}

export function useOffline(): boolean {
  return useSyncExternalStore(subscribe, isOffline, () => false);
}

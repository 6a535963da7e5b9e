import './reactOnPreact';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App, preloadFirstScreen } from './App';
import { splitFirstScreen } from './components/NextTask';
import i18n from './i18n';
import { tellServiceWorkerLanguage } from './push/swLanguage';
import { createQueryClient } from './queries/queryClient';
import { hasStoredSession } from './queries/session';
import './styles.css';

function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => {
      console.error('Service worker registration failed', error);
    });
    tellServiceWorkerLanguage(i18n, navigator.serviceWorker);
  });
}

const signedIn = hasStoredSession();
const queryClient = createQueryClient();
preloadFirstScreen(window.location.pathname, signedIn, queryClient);
splitFirstScreen(queryClient);

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

// A signed-in start asks the browser for its time zone (the signed-in frame compares it with
// the server's): the first such question loads the browser's zone data, which takes longer
// than the rest of a render on a slow phone. Asked here, in a task of its own before the first
// render's, no single task holds the page long.
if (signedIn) {
  setTimeout(() => {
    try {
      Intl.DateTimeFormat().resolvedOptions();
    } catch {
      // The frame asks again and copes without an answer.
    }
  }, 0);
}

// The first render in a task of its own, after the one that ran the app's code and sent the
// first screen's requests: a tap in between is answered, and neither task is long.
setTimeout(() => {
  createRoot(container).render(
    <StrictMode>
      <BrowserRouter>
        <App queryClient={queryClient} />
      </BrowserRouter>
    </StrictMode>,
  );
}, 0);

registerServiceWorker();

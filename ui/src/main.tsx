import './reactOnPreact';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App, preloadFirstScreen } from './App';
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

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

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

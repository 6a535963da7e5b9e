import './reactOnPreact';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App, preloadFirstScreen } from './App';
import i18n from './i18n';
import { tellServiceWorkerLanguage } from './push/swLanguage';
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

preloadFirstScreen(window.location.pathname, hasStoredSession());

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <BrowserRouter>
      <App />
    </BrowserRouter>
  </StrictMode>,
);

registerServiceWorker();

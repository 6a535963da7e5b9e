// The service worker words its notices (a snoozed reminder, one taken on another device) in
// the app's language, which only the page knows: the page tells it now and on every change.
import type { I18n } from '../i18n';

export function tellServiceWorkerLanguage(i18n: I18n, container: ServiceWorkerContainer): void {
  const tell = (language: string) => {
    void container.ready.then((registration) => registration.active?.postMessage({ type: 'language', language }));
  };
  tell(i18n.language);
  i18n.on('languageChanged', tell);
}

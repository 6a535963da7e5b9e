import { useEffect, useRef, useState } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { BrandMark } from './BrandMark';
import { CloseIcon, DownloadIcon } from './icons';
import {
  INSTALL_BANNER_DELAY_MS,
  type BeforeInstallPromptEvent,
  isStandalone,
  rememberDismissal,
  wasDismissedRecently,
} from './installPrompt';

/** Offers installation 3 s after the browser says the app can be installed. */
export function InstallBanner() {
  const { t } = useTranslation();
  const [visible, setVisible] = useState(false);
  const deferredPrompt = useRef<BeforeInstallPromptEvent | null>(null);

  useEffect(() => {
    if (isStandalone()) return;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const onBeforeInstallPrompt = (event: Event) => {
      // Keep the browser's own mini-infobar away; we show the banner instead.
      event.preventDefault();
      deferredPrompt.current = event as BeforeInstallPromptEvent;
      if (wasDismissedRecently()) return;
      clearTimeout(timer);
      timer = setTimeout(() => setVisible(true), INSTALL_BANNER_DELAY_MS);
    };
    const onInstalled = () => {
      clearTimeout(timer);
      deferredPrompt.current = null;
      setVisible(false);
    };

    window.addEventListener('beforeinstallprompt', onBeforeInstallPrompt);
    window.addEventListener('appinstalled', onInstalled);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('beforeinstallprompt', onBeforeInstallPrompt);
      window.removeEventListener('appinstalled', onInstalled);
    };
  }, []);

  if (!visible) return null;

  const dismiss = () => {
    rememberDismissal();
    setVisible(false);
  };

  const install = async () => {
    const promptEvent = deferredPrompt.current;
    if (!promptEvent) {
      setVisible(false);
      return;
    }
    try {
      await promptEvent.prompt();
      const choice = await promptEvent.userChoice;
      if (choice.outcome === 'dismissed') rememberDismissal();
    } catch (error) {
      console.error('Install prompt failed', error);
    } finally {
      // The event can be used only once.
      deferredPrompt.current = null;
      setVisible(false);
    }
  };

  return (
    <section className="install-banner" role="region" aria-labelledby="install-banner-title" data-testid="install-banner">
      <BrandMark size={40} />
      <div className="install-banner-text">
        <h2 id="install-banner-title">{t('install.title')}</h2>
        <p>{t('install.description')}</p>
        <div className="install-banner-actions">
          <button type="button" className="button button-primary" onClick={() => void install()}>
            <DownloadIcon />
            <span>{t('install.install')}</span>
          </button>
          <button type="button" className="button button-secondary" onClick={dismiss}>
            {t('install.notNow')}
          </button>
        </div>
      </div>
      <button type="button" className="icon-button install-banner-close" onClick={dismiss} aria-label={t('install.close')}>
        <CloseIcon />
      </button>
    </section>
  );
}

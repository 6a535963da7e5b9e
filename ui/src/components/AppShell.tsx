import { Suspense, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Outlet, useLocation } from 'react-router-dom';
import { PersonScopeProvider } from '../people/PersonScopeProvider';
import { usePeopleQuery } from '../queries/people';
import { useServerSettingsSync } from '../queries/settingsSync';
import { BrandMark } from './BrandMark';
import { MenuIcon } from './icons';
import { NextTask } from './NextTask';
import { OfflineNotice } from './OfflineNotice';
import { PersonSwitcher } from './people/PersonSwitcher';
import { RouteErrorBoundary } from './RouteErrorBoundary';
import { RouteLoading } from './RouteLoading';
import { Sidebar } from './Sidebar';
import { TimeZonePrompt } from './TimeZonePrompt';

const SIDEBAR_ID = 'app-sidebar';

/** The signed-in layout: sidebar (a drawer below 1024 px) and the routed screen. */
export function AppShell() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  useServerSettingsSync();
  // The drawer is open for the page it was opened on, so any navigation closes it.
  const [openedOn, setOpenedOn] = useState<string | null>(null);
  const drawerOpen = openedOn === pathname;
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  const closeButtonRef = useRef<HTMLButtonElement>(null);
  const people = usePeopleQuery().data;
  // Only an account with more than one person has anyone to switch to.
  const switcher = people && people.length > 1;

  const closeDrawer = () => setOpenedOn(null);

  // Before the drawer is painted (Preact runs effects a frame later): an Escape pressed as soon
  // as it shows closes it, and the focus is in it from the start.
  useLayoutEffect(() => {
    if (!drawerOpen) return;
    closeButtonRef.current?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpenedOn(null);
    };
    document.addEventListener('keydown', onKeyDown);
    const menuButton = menuButtonRef.current;
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      // Give focus back to the button that opened the drawer, unless it moved elsewhere.
      if (document.activeElement === document.body || document.activeElement?.closest(`#${SIDEBAR_ID}`)) {
        menuButton?.focus();
      }
    };
  }, [drawerOpen]);

  return (
    <PersonScopeProvider>
      <div className="app-shell">
        <a className="skip-link" href="#main-content">
          {t('nav.skipToContent')}
        </a>
        <header className={switcher ? 'topbar has-switcher' : 'topbar'}>
          <button
            type="button"
            className="icon-button menu-button"
            data-testid="menu-button"
            aria-label={t('nav.openMenu')}
            aria-controls={SIDEBAR_ID}
            aria-expanded={drawerOpen}
            onClick={() => setOpenedOn(pathname)}
            ref={menuButtonRef}
          >
            <MenuIcon />
          </button>
          <span className="topbar-brand">
            <BrandMark size={28} />
            <span>{t('app.name')}</span>
          </span>
          {switcher && <PersonSwitcher people={people} />}
        </header>

        <Sidebar id={SIDEBAR_ID} open={drawerOpen} onClose={closeDrawer} closeButtonRef={closeButtonRef} />
        {drawerOpen && (
          <div className="drawer-backdrop" data-testid="drawer-backdrop" aria-hidden="true" onClick={closeDrawer} />
        )}

        <main id="main-content" className="app-main" tabIndex={-1}>
          <OfflineNotice />
          <TimeZonePrompt />
          {/* The layout stays while the next screen's code and texts arrive. */}
          <RouteErrorBoundary inline>
            <Suspense fallback={<RouteLoading inline />}>
              <NextTask>
                <Outlet />
              </NextTask>
            </Suspense>
          </RouteErrorBoundary>
        </main>
      </div>
    </PersonScopeProvider>
  );
}

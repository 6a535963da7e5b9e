import type { ComponentType, Ref, SVGProps } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { useAuth } from '../auth/AuthContext';
import { displayName } from '../auth/displayName';
import { BrandMark } from './BrandMark';
import { BellIcon, CalendarIcon, CloseIcon, HistoryIcon, PeopleIcon, PillIcon, SettingsIcon, SignOutIcon } from './icons';
import { VersionLabel } from './VersionLabel';

interface NavEntry {
  to: string;
  labelKey: string;
  icon: ComponentType<SVGProps<SVGSVGElement>>;
  /** Other paths on which this entry is shown active. */
  alsoActiveOn?: string[];
}

export const NAV_ENTRIES: NavEntry[] = [
  { to: '/medications', labelKey: 'nav.medications', icon: PillIcon, alsoActiveOn: ['/'] },
  { to: '/today', labelKey: 'nav.today', icon: CalendarIcon },
  { to: '/notifications', labelKey: 'nav.notifications', icon: BellIcon },
  { to: '/history', labelKey: 'nav.history', icon: HistoryIcon },
  { to: '/people', labelKey: 'nav.people', icon: PeopleIcon },
  { to: '/settings', labelKey: 'nav.settings', icon: SettingsIcon },
];

function isActive(entry: NavEntry, pathname: string): boolean {
  return (
    pathname === entry.to ||
    pathname.startsWith(`${entry.to}/`) ||
    (entry.alsoActiveOn ?? []).includes(pathname)
  );
}

interface SidebarProps {
  id: string;
  /** Whether the drawer is open; only matters below the desktop breakpoint. */
  open: boolean;
  onClose: () => void;
  closeButtonRef?: Ref<HTMLButtonElement>;
}

export function Sidebar({ id, open, onClose, closeButtonRef }: SidebarProps) {
  const { t } = useTranslation();
  const { user, logout } = useAuth();
  const { pathname } = useLocation();
  const navigate = useNavigate();

  const signOut = () => {
    try {
      logout();
    } catch (error) {
      console.error('Sign out failed', error);
    }
    void navigate('/login', { replace: true });
  };

  return (
    <aside id={id} className={open ? 'sidebar is-open' : 'sidebar'} data-testid="sidebar">
      <div className="sidebar-header">
        <Link to="/medications" className="sidebar-brand" onClick={onClose}>
          <BrandMark size={32} />
          <span>{t('app.name')}</span>
        </Link>
        <button
          type="button"
          className="icon-button sidebar-close"
          onClick={onClose}
          aria-label={t('nav.closeMenu')}
          ref={closeButtonRef}
        >
          <CloseIcon />
        </button>
      </div>

      <nav className="sidebar-nav" aria-label={t('nav.label')}>
        <ul>
          {NAV_ENTRIES.map((entry) => {
            const active = isActive(entry, pathname);
            const EntryIcon = entry.icon;
            return (
              <li key={entry.to}>
                <Link
                  to={entry.to}
                  className={active ? 'nav-link is-active' : 'nav-link'}
                  aria-current={active ? 'page' : undefined}
                  onClick={onClose}
                >
                  <EntryIcon />
                  <span>{t(entry.labelKey)}</span>
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>

      <div className="sidebar-footer">
        {user && <SidebarUser name={displayName(user)} email={user.email} />}
        <button type="button" className="button button-quiet sidebar-signout" onClick={signOut}>
          <SignOutIcon />
          <span>{t('nav.signOut')}</span>
        </button>
        <VersionLabel className="sidebar-version" />
      </div>
    </aside>
  );
}

/** Who is signed in: their name once they set one (with the address under it), else the address. */
function SidebarUser({ name, email }: { name: string; email: string }) {
  const shown = name === '' ? email : name;
  return (
    <div className="sidebar-user">
      <span className="avatar" aria-hidden="true" data-testid="user-initial">
        {shown.charAt(0).toUpperCase()}
      </span>
      <span className="sidebar-who">
        {name !== '' && (
          <span className="sidebar-name" title={name} data-testid="user-name">
            {name}
          </span>
        )}
        <span className={name === '' ? 'sidebar-email' : 'sidebar-email muted'} title={email} data-testid="user-email">
          {email}
        </span>
      </span>
    </div>
  );
}

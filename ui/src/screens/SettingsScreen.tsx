import { useTranslation } from '../i18n/useTranslation';
import { Link, useSearchParams } from 'react-router-dom';
import { useAuth } from '../auth/AuthContext';
import { ScreenFrame } from './ScreenFrame';
import { AccountSection } from './settings/AccountSection';
import { AppearanceSection } from './settings/AppearanceSection';
import { DataManagementSection } from './settings/DataManagementSection';
import { MedicationDefaultsSection } from './settings/MedicationDefaultsSection';
import { NotificationsSection } from './settings/NotificationsSection';
import { ProfileSection } from './settings/ProfileSection';
import { SECTION_TITLE_ID } from './settings/SectionHeading';
import { SecuritySection } from './settings/SecuritySection';

/** The side sections of spec §2 "Settings page", in order; `?section=` opens one. */
export const SETTINGS_SECTIONS = [
  'profile',
  'notifications',
  'appearance',
  'medications',
  'data',
  'security',
  'account',
] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];

export function SettingsScreen() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const [searchParams] = useSearchParams();
  const current: SettingsSection =
    SETTINGS_SECTIONS.find((section) => section === searchParams.get('section')) ?? 'profile';

  if (!user) {
    return (
      <ScreenFrame title={t('settings.authRequired')}>
        <p className="card-text">{t('settings.loginRequired')}</p>
        <p>
          <Link className="button button-primary" to="/login">
            {t('settings.goToLogin')}
          </Link>
        </p>
      </ScreenFrame>
    );
  }

  const panel = (() => {
    switch (current) {
      case 'profile':
        return <ProfileSection user={user} />;
      case 'notifications':
        return <NotificationsSection />;
      case 'appearance':
        return <AppearanceSection />;
      case 'medications':
        return <MedicationDefaultsSection />;
      case 'data':
        return <DataManagementSection />;
      case 'security':
        return <SecuritySection />;
      case 'account':
        return <AccountSection />;
    }
  })();

  return (
    <ScreenFrame title={t('settings.title')}>
      <div className="settings-layout">
        <nav className="settings-nav" aria-label={t('settings.sectionsLabel')}>
          <ul>
            {SETTINGS_SECTIONS.map((section) => (
              <li key={section}>
                <Link
                  to={`?section=${section}`}
                  replace
                  className={section === current ? 'settings-nav-link is-active' : 'settings-nav-link'}
                  aria-current={section === current ? 'page' : undefined}
                >
                  {t(`settings.sections.${section}`)}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <section className="settings-panel" aria-labelledby={SECTION_TITLE_ID} key={current}>
          {panel}
        </section>
      </div>
    </ScreenFrame>
  );
}

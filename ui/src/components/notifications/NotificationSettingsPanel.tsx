import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { Link } from 'react-router-dom';
import { NotificationPreferencesDialog } from './NotificationPreferencesDialog';
import { PushCard } from './PushCard';
import { TestNotificationCard } from './TestNotificationCard';

/** The Notifications page's Settings tab (SPEC §2): push, general, per-medication, test. */
export function NotificationSettingsPanel() {
  return (
    <div className="notification-settings">
      <PushCard />
      <GeneralSettingsCard />
      <PerMedicationCard />
      <TestNotificationCard />
    </div>
  );
}

function GeneralSettingsCard() {
  const { t } = useTranslation('notify');
  const [open, setOpen] = useState(false);
  return (
    <section className="card" aria-labelledby="general-card-title" data-testid="general-card">
      <h3 id="general-card-title">{t('general.title')}</h3>
      <p className="card-text">{t('general.description')}</p>
      <div>
        <button type="button" className="button button-secondary" onClick={() => setOpen(true)}>
          {t('general.configure')}
        </button>
      </div>
      {open && <NotificationPreferencesDialog onClose={() => setOpen(false)} />}
    </section>
  );
}

function PerMedicationCard() {
  const { t } = useTranslation('notify');
  return (
    <section className="card" aria-labelledby="per-medication-card-title" data-testid="per-medication-card">
      <h3 id="per-medication-card-title">{t('perMedication.title')}</h3>
      <p className="card-text">{t('perMedication.description')}</p>
      <div>
        <Link to="/medications" className="button button-secondary">
          {t('perMedication.link')}
        </Link>
      </div>
    </section>
  );
}

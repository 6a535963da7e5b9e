import { useTranslation } from '../../i18n/useTranslation';
import { BackupList } from './data/BackupList';
import { ExportCard } from './data/ExportCard';
import { ImportCard } from './data/ImportCard';
import { RetentionCard } from './data/RetentionCard';
import { SettingsLoadState } from './data/SettingsLoadState';
import { useDataSettings } from './data/useDataSettings';
import { SectionHeading } from './SectionHeading';
import '../../styles/data.css';

/** SPEC §2 "Data Management" with issue 11: export, report, import, retention, backups. */
export function DataManagementSection() {
  const { t: tApp } = useTranslation();
  const { t } = useTranslation('data');
  const { settings, failed, retry } = useDataSettings();

  return (
    <>
      <SectionHeading title={tApp('settings.sections.data')} description={t('manage.description')} />
      <ExportCard />
      <ImportCard />
      {settings ? (
        <RetentionCard days={settings.dataRetention} />
      ) : (
        <section className="card" aria-labelledby="data-retention-title">
          <h3 id="data-retention-title">{t('retention.title')}</h3>
          <SettingsLoadState failed={failed} onRetry={retry} />
        </section>
      )}
      <section className="card" aria-labelledby="data-backups-title">
        <h3 id="data-backups-title">{t('backups.title')}</h3>
        <p className="card-text">{t('backups.text')}</p>
        {settings && !settings.autoBackup && <p className="warning-text">{t('backups.off')}</p>}
        <BackupList />
      </section>
    </>
  );
}

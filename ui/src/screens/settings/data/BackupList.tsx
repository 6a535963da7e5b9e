import { useTranslation } from '../../../i18n/useTranslation';
import { DisabledReason, disabledBecause } from '../../../components/DisabledReason';
import { FlashMessage } from '../../../components/FlashMessage';
import { DownloadIcon } from '../../../components/icons';
import { useMedsFormat } from '../../../components/medications/useMedsFormat';
import { saveFile } from '../../../components/saveFile';
import { useFlash } from '../../../components/useFlash';
import { localeOf } from '../../../medications/format';
import { useBackupsQuery, useDownloadBackup } from '../../../queries/account';

const SIZE_UNITS = [
  ['megabyte', 1024 * 1024],
  ['kilobyte', 1024],
] as const;

/** "1.2 kB", "830 byte" in the person's language. */
export function formatSize(bytes: number, language: string): string {
  const [unit, size] = SIZE_UNITS.find(([, size]) => bytes >= size) ?? ['byte', 1];
  return new Intl.NumberFormat(localeOf(language), {
    style: 'unit',
    unit,
    unitDisplay: 'short',
    maximumFractionDigits: 1,
  }).format(bytes / size);
}

/** The kept daily backups (newest first), each with a Download button. */
export function BackupList() {
  const { t } = useTranslation('data');
  const format = useMedsFormat();
  const query = useBackupsQuery();
  const backups = query.data ?? null;
  const loadFailed = query.isError && !backups && !query.isFetching;
  const downloadBackup = useDownloadBackup();
  const downloading = downloadBackup.isPending ? downloadBackup.variables : null;
  const [flash, showFlash] = useFlash();

  const download = async (name: string) => {
    try {
      saveFile(await downloadBackup.mutateAsync(name));
    } catch {
      showFlash('error', t('backups.downloadFailed'));
    }
  };

  if (loadFailed) {
    return (
      <div className="button-row">
        <p className="form-error" role="alert">
          {t('backups.loadFailed')}
        </p>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => void query.refetch()}
        >
          {t('common.retry')}
        </button>
      </div>
    );
  }
  if (!backups) {
    return (
      <p className="muted" role="status">
        {t('common.loading')}
      </p>
    );
  }
  if (backups.length === 0) return <p className="muted">{t('backups.empty')}</p>;
  // One download at a time; the buttons say which one they wait for.
  const waiting = downloading === null ? null : t('backups.downloading', { name: downloading });

  return (
    <>
      <FlashMessage flash={flash} />
      <ul className="backup-list" data-testid="backup-list">
        {backups.map((backup) => (
          <li key={backup.name} className="backup-item">
            <span className="backup-text">
              <span className="backup-name">{backup.name}</span>
              <span className="backup-meta">
                {format.dateTime(backup.created_at)} · {formatSize(backup.size, format.language)}
              </span>
            </span>
            <button
              type="button"
              className="button button-secondary button-small"
              aria-label={t('backups.downloadNamed', { name: backup.name })}
              disabled={downloading !== null}
              {...disabledBecause('backup-downloading', waiting)}
              onClick={() => void download(backup.name)}
            >
              <DownloadIcon />
              <span>{t('backups.download')}</span>
            </button>
          </li>
        ))}
      </ul>
      <DisabledReason id="backup-downloading" reason={waiting} />
    </>
  );
}

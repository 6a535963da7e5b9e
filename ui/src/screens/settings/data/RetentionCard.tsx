import { useState } from 'react';
import { useTranslation } from '../../../i18n/useTranslation';
import type { RetentionPreview } from '../../../api/data';
import { FlashMessage } from '../../../components/FlashMessage';
import { ConfirmDialog } from '../../../components/medications/ConfirmDialog';
import { useFlash } from '../../../components/useFlash';
import { formatDate } from '../../../medications/format';
import { useRetentionPreview, useSaveDataSettings } from '../../../queries/account';
import { DATA_RETENTION_DAYS, type RetentionDays } from '../../../settings/appSettings';
import { useAppSettings } from '../../../settings/SettingsContext';
import { failureReason } from './failureReason';

/** Forever first: it is what an account has until the person chooses. */
const PERIODS: RetentionDays[] = [0, ...DATA_RETENTION_DAYS.filter((days) => days !== 0)];

const DAY_MS = 24 * 60 * 60 * 1000;

/** The moment before which entries go: the server's, else that many days ago. */
function cutoffOf(preview: RetentionPreview): Date {
  const cutoff = preview.cutoff ? new Date(preview.cutoff) : null;
  return cutoff && !Number.isNaN(cutoff.getTime()) ? cutoff : new Date(Date.now() - preview.days * DAY_MS);
}

/**
 * The retention select. Nothing is deleted unless the person chose a period: choosing one
 * first says how many history entries it deletes now, and Cancel keeps the old value.
 */
export function RetentionCard({ days }: { days: number }) {
  const { t, i18n } = useTranslation('data');
  const { settings, updateSettings } = useAppSettings();
  const saveSettings = useSaveDataSettings();
  const retentionPreview = useRetentionPreview();
  const counting = retentionPreview.isPending;
  const [preview, setPreview] = useState<RetentionPreview | null>(null);
  const [flash, showFlash] = useFlash();

  const save = async (chosen: RetentionDays) => {
    const saved = await saveSettings.mutateAsync({ dataRetention: chosen });
    // The browser's copy of the settings (SPEC §3) follows the server's.
    updateSettings({ dataRetention: saved.dataRetention });
    showFlash('success', t('common.saved'));
  };

  const choose = async (chosen: RetentionDays) => {
    if (chosen === days) return;
    if (chosen === 0) {
      try {
        await save(0);
      } catch (error) {
        showFlash('error', failureReason(error) ?? t('common.saveFailed'));
      }
      return;
    }
    try {
      setPreview(await retentionPreview.mutateAsync(chosen));
    } catch (error) {
      showFlash('error', t('retention.countFailed', { reason: failureReason(error) ?? t('common.saveFailed') }));
    }
  };

  const period = (value: number) => t(`retention.options.${value}`);

  return (
    <section className="card" aria-labelledby="data-retention-title">
      <h3 id="data-retention-title">{t('retention.title')}</h3>
      <FlashMessage flash={flash} />
      <div className="field data-form">
        <label htmlFor="data-retention">{t('retention.label')}</label>
        <select
          id="data-retention"
          value={days}
          disabled={counting}
          aria-describedby="data-retention-hint"
          onChange={(event) => {
            const chosen = PERIODS.find((value) => value === Number(event.target.value));
            if (chosen !== undefined) void choose(chosen);
          }}
        >
          {PERIODS.map((value) => (
            <option key={value} value={value}>
              {period(value)}
            </option>
          ))}
        </select>
        <p id="data-retention-hint" className="field-hint">
          {t('retention.hint')}
        </p>
      </div>
      {counting && (
        <p className="muted" role="status">
          {t('retention.checking')}
        </p>
      )}
      <p className="warning-text" data-testid="retention-notice">
        {t('retention.notice')}
      </p>

      {preview && (
        <ConfirmDialog
          title={t('retention.confirmTitle', { period: period(preview.days) })}
          confirmLabel={t('retention.confirm', { period: period(preview.days) })}
          busyLabel={t('common.saving')}
          onClose={() => setPreview(null)}
          onConfirm={async () => {
            try {
              await save(preview.days);
            } catch (error) {
              throw new Error(failureReason(error) ?? t('common.saveFailed'), { cause: error });
            }
            setPreview(null);
          }}
        >
          <p data-testid="retention-count">
            {preview.entries > 0
              ? t('retention.deletesNow', { count: preview.entries, date: formatDate(cutoffOf(preview), settings.dateFormat, i18n.language) })
              : t('retention.deletesNone')}
          </p>
          <p>{t('retention.daily', { period: period(preview.days) })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

import { useTranslation } from '../../../i18n/useTranslation';

/** "Loading..." or "Failed to load settings" with a retry, while a section's settings are not there. */
export function SettingsLoadState({ failed, onRetry }: { failed: boolean; onRetry: () => void }) {
  const { t } = useTranslation('data');
  return failed ? (
    <div className="button-row">
      <p className="form-error" role="alert">
        {t('common.loadFailed')}
      </p>
      <button type="button" className="button button-secondary" onClick={onRetry}>
        {t('common.retry')}
      </button>
    </div>
  ) : (
    <p className="muted" role="status">
      {t('common.loading')}
    </p>
  );
}

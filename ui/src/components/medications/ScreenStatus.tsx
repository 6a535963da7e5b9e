import { useTranslation } from '../../i18n/useTranslation';

interface ScreenStatusProps {
  loading: boolean;
  error: string | null;
  onRetry: () => void;
}

/** A screen's loading state, or its load failure with a retry (what was loaded stays below). */
export function ScreenStatus({ loading, error, onRetry }: ScreenStatusProps) {
  const { t } = useTranslation('meds');
  if (error) {
    return (
      <div className="form-error screen-error" role="alert">
        <p>{error}</p>
        <button type="button" className="button-link" onClick={onRetry}>
          {t('common.retry')}
        </button>
      </div>
    );
  }
  if (!loading) return null;
  return (
    <div className="screen-loading" role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{t('common.loading')}</span>
    </div>
  );
}

import { useTranslation } from '../i18n/useTranslation';
import { useServerVersion } from './useServerVersion';

/** "Pillbox" and the server's version, as the sidebar and the login footer show them. */
export function VersionLabel({ className }: { className?: string }) {
  const { t } = useTranslation();
  const version = useServerVersion();
  return (
    <p className={className ? `version-line ${className}` : 'version-line'}>
      <span className="version-product">{t('app.name')}</span>
      <span className="version-separator" aria-hidden="true">
        ·
      </span>
      <span className="visually-hidden">{t('app.version')}</span>
      <span data-testid="version-label">{version}</span>
    </p>
  );
}

import { useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { subscribeUnitCatalogue, unitCatalogue } from '../../medications/unitCatalogue';
import { loadUnitCatalogue } from '../../queries/units';
import { LoadingScreen } from '../LoadingScreen';

/**
 * Shows `children` once the unit catalogue is known: at once when an earlier visit left a
 * copy (refreshed from the server in the background), else after the server's answer.
 */
export function UnitCatalogueGate({ children }: { children: ReactNode }) {
  const { t } = useTranslation('meds');
  const units = useSyncExternalStore(subscribeUnitCatalogue, unitCatalogue);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    loadUnitCatalogue().catch(() => {
      if (current) setFailed(true);
    });
    return () => {
      current = false;
    };
  }, [attempt]);

  if (units.length > 0) return children;
  if (!failed) return <LoadingScreen />;
  return (
    <div className="form-error screen-error" role="alert">
      <p>{t('errors.loadUnits')}</p>
      <button
        type="button"
        className="button-link"
        onClick={() => {
          setFailed(false);
          setAttempt((n) => n + 1);
        }}
      >
        {t('common.retry')}
      </button>
    </div>
  );
}

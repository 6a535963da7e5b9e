import { useEffect, useState } from 'react';
import { useTranslation } from '../i18n/useTranslation';

/** A screen that arrives sooner than this never shows the loading notice, so it does not flash. */
export const LOADING_NOTICE_DELAY_MS = 400;

/**
 * Stands in for a screen whose code or texts are still on their way. `inline` inside the
 * signed-in layout (which stays), else the whole page.
 */
export function RouteLoading({ inline = false }: { inline?: boolean }) {
  // The texts may be what is loading: this notice never waits for them.
  const { t, ready } = useTranslation('translation', { useSuspense: false });
  const [shown, setShown] = useState(false);

  useEffect(() => {
    const timer = setTimeout(() => setShown(true), LOADING_NOTICE_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);

  if (!shown) return null;
  return (
    <div className={inline ? 'loading-screen loading-inline' : 'loading-screen'} role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {ready && <span>{t('common.loading')}</span>}
    </div>
  );
}

import { useEffect, useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { allowedWhen, laterThanNow } from '../../medications/doseLimits';
import { useMedsFormat } from './useMedsFormat';

// setTimeout holds at most 2^31-1 ms; a later moment is checked again after that long.
const MAX_TIMER_MS = 2_147_483_647;

/** "The next dose is allowed tomorrow at 6:00 AM" while that is still to come; it goes away when it passes. */
export function NextDoseAllowed({ at }: { at: string | null }) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const [now, setNow] = useState(() => Date.now());
  const moment = laterThanNow(at, now);

  // Looks again just after the moment (and at once when it changes), so the line leaves on time.
  useEffect(() => {
    const shown = laterThanNow(at, now);
    if (shown === null) return;
    const wait = Math.max(shown.getTime() - Date.now(), 0);
    const timer = setTimeout(() => setNow(Date.now()), Math.min(wait + 50, MAX_TIMER_MS));
    return () => clearTimeout(timer);
  }, [at, now]);

  if (moment === null) return null;
  return (
    <p className="med-next-allowed" data-testid="next-dose-allowed">
      {t('card.nextAllowed', { when: allowedWhen(t, moment, format.moment, new Date(now)) })}
    </p>
  );
}

import { useTranslation } from '../../i18n/useTranslation';
import { allowedWhen, type LimitRefusal } from '../../medications/doseLimits';
import { ConfirmDialog } from './ConfirmDialog';
import { useMedsFormat } from './useMedsFormat';

interface TakeAnywayDialogProps {
  name: string;
  refusal: LimitRefusal;
  /** Sends the dose again with `confirm: true`; rejects with the text to show. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/** "Take anyway?" for an as-needed dose the server found too soon or over the most in 24 hours. */
export function TakeAnywayDialog({ name, refusal, onConfirm, onClose }: TakeAnywayDialogProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const moment = refusal.nextAllowedAt === null ? null : new Date(refusal.nextAllowedAt);
  // The instant says the day as well; the server's "HH:MM" alone is today's time.
  const when =
    moment !== null && !Number.isNaN(moment.getTime())
      ? allowedWhen(t, moment, format.moment)
      : t('card.nextAllowedWhen.today', { time: refusal.time === null ? '' : format.timeOfDay(refusal.time) });
  return (
    <ConfirmDialog
      title={t('takeAnyway.title')}
      confirmLabel={t('takeAnyway.confirm')}
      busyLabel={t('dose.logging')}
      onConfirm={onConfirm}
      onClose={onClose}
    >
      <p data-testid="take-anyway-text">
        {t(refusal.code === 'dose_too_soon' ? 'takeAnyway.tooSoon' : 'takeAnyway.maximum', { name, when })}
      </p>
    </ConfirmDialog>
  );
}

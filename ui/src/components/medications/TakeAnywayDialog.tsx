import { useTranslation } from 'react-i18next';
import type { LimitRefusal } from '../../medications/doseLimits';
import { ConfirmDialog } from './ConfirmDialog';
import { useMedsFormat } from './useMedsFormat';

interface TakeAnywayDialogProps {
  name: string;
  refusal: LimitRefusal;
  /** Sends the dose again with `confirm: true`; rejects with the text to show. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/** "Take anyway?" for an as-needed dose the server found too soon or over the day's maximum. */
export function TakeAnywayDialog({ name, refusal, onConfirm, onClose }: TakeAnywayDialogProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const time =
    refusal.time !== null
      ? format.timeOfDay(refusal.time)
      : refusal.nextAllowedAt !== null
        ? format.time(refusal.nextAllowedAt)
        : '';
  return (
    <ConfirmDialog
      title={t('takeAnyway.title')}
      confirmLabel={t('takeAnyway.confirm')}
      busyLabel={t('dose.logging')}
      onConfirm={onConfirm}
      onClose={onClose}
    >
      <p data-testid="take-anyway-text">
        {t(refusal.code === 'dose_too_soon' ? 'takeAnyway.tooSoon' : 'takeAnyway.maximum', { name, time })}
      </p>
    </ConfirmDialog>
  );
}

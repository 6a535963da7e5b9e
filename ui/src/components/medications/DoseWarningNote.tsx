import { useTranslation } from '../../i18n/useTranslation';
import type { DoseWarning } from '../../api/medicationTypes';
import '../../styles/medications.css';

/** The text of a dose warning: ours for a known code, else the server's own words. */
export function useDoseWarningText(): (warning: DoseWarning) => string {
  const { t } = useTranslation('meds');
  return (warning) => (warning.code ? t(`doseWarning.${warning.code}`) : warning.message);
}

interface DoseWarningNoteProps {
  warning: DoseWarning;
  /** The medication it is about, when the screen lists several. */
  name?: string;
  onDismiss?: () => void;
}

/**
 * A recorded dose whose stock could not follow (units that do not convert, or stock that
 * ran out). It stays until dismissed: the person has something to fix.
 */
export function DoseWarningNote({ warning, name, onDismiss }: DoseWarningNoteProps) {
  const { t } = useTranslation('meds');
  const text = useDoseWarningText()(warning);
  return (
    <div className="form-warning dose-warning" role="status" data-testid="dose-warning">
      <p>{name ? t('doseWarning.about', { name, text }) : text}</p>
      {onDismiss && (
        <button type="button" className="button button-secondary button-small" onClick={onDismiss}>
          {t('doseWarning.dismiss')}
        </button>
      )}
    </div>
  );
}

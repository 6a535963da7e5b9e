import { useTranslation } from '../i18n/useTranslation';
import { DisabledReason, disabledBecause } from './DisabledReason';

interface FormDialogActionsProps {
  /** The form the submit button sends (the buttons sit in the dialog's footer, outside it). */
  formId: string;
  /** Saving (or closing after a save): both buttons wait, and the submit button says so. */
  busy: boolean;
  submitLabel: string;
  /** What the submit button says while busy: "Saving..." unless given. */
  busyLabel?: string;
  /** A change that cannot be undone: the submit button in red. */
  danger?: boolean;
  /**
   * Why the form cannot be sent yet ("Enter your password to continue."), or null once it
   * can: the submit button waits, and the reason is shown above it and names it for screen
   * readers (`${formId}-reason`).
   */
  disabledReason?: string | null;
  onCancel: () => void;
}

/** A form dialog's Cancel and submit buttons, for the dialog's `actions`. */
export function FormDialogActions({
  formId,
  busy,
  submitLabel,
  busyLabel,
  danger = false,
  disabledReason = null,
  onCancel,
}: FormDialogActionsProps) {
  const { t } = useTranslation();
  const reasonId = `${formId}-reason`;
  return (
    <>
      <DisabledReason id={reasonId} reason={disabledReason} />
      <button type="button" className="button button-secondary" onClick={onCancel} disabled={busy}>
        {t('common.cancel')}
      </button>
      <button
        type="submit"
        form={formId}
        className={danger ? 'button button-danger' : 'button button-primary'}
        disabled={busy || disabledReason !== null}
        {...disabledBecause(reasonId, disabledReason)}
      >
        {busy ? (busyLabel ?? t('common.saving')) : submitLabel}
      </button>
    </>
  );
}

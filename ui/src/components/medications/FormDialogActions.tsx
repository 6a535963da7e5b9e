import { useTranslation } from 'react-i18next';

interface FormDialogActionsProps {
  /** The form the submit button sends. */
  formId: string;
  /** Saving (or closing after a save): both buttons wait, and the submit button says so. */
  busy: boolean;
  submitLabel: string;
  onCancel: () => void;
}

/** A form dialog's Cancel and submit buttons. */
export function FormDialogActions({ formId, busy, submitLabel, onCancel }: FormDialogActionsProps) {
  const { t } = useTranslation('meds');
  return (
    <>
      <button type="button" className="button button-secondary" onClick={onCancel} disabled={busy}>
        {t('common.cancel')}
      </button>
      <button type="submit" form={formId} className="button button-primary" disabled={busy}>
        {busy ? t('common.saving') : submitLabel}
      </button>
    </>
  );
}

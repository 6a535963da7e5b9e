import { useState, type ReactNode } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { Dialog } from '../Dialog';
import { FormError } from './FormError';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel: string;
  /** Rejects with the text to show when it failed. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/** "Are you sure?" for something that cannot be undone; Cancel has the focus. */
export function ConfirmDialog({ title, children, confirmLabel, busyLabel, onConfirm, onClose }: ConfirmDialogProps) {
  const { t } = useTranslation('meds');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={title}
      onClose={busy ? undefined : onClose}
      className="dialog-danger"
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy} data-autofocus>
            {t('common.cancel')}
          </button>
          <button type="button" className="button button-danger" onClick={() => void confirm()} disabled={busy}>
            {busy ? busyLabel : confirmLabel}
          </button>
        </>
      }
    >
      <FormError text={error} />
      {children}
    </Dialog>
  );
}

import { useTranslation } from '../../i18n/useTranslation';
import { ConfirmWithPasswordDialog } from '../../components/ConfirmWithPasswordDialog';
import { errorText } from '../../i18n/messages';
import { useRegenerateBackupCodes } from '../../queries/security';

interface RegenerateCodesDialogProps {
  onClose: () => void;
  /** The new codes; the old ones no longer work. */
  onRegenerated: (codes: string[]) => void;
}

/** New backup codes after asking, confirmed with the account password. */
export function RegenerateCodesDialog({ onClose, onRegenerated }: RegenerateCodesDialogProps) {
  const { t } = useTranslation();
  const regenerate = useRegenerateBackupCodes();

  return (
    <ConfirmWithPasswordDialog
      title={t('twoFactor.backupCodes.regenerateTitle')}
      passwordId="regenerate-password"
      submitLabel={t('twoFactor.backupCodes.regenerateConfirm')}
      busyLabel={t('twoFactor.backupCodes.regenerating')}
      busy={regenerate.isPending}
      error={regenerate.error ? errorText(t, regenerate.error, 'twoFactor.errors.regenerate') : null}
      onConfirm={(password) => regenerate.mutate(password, { onSuccess: onRegenerated })}
      onClose={onClose}
    >
      <p>{t('twoFactor.backupCodes.regenerateText')}</p>
    </ConfirmWithPasswordDialog>
  );
}

import { useTranslation } from '../../i18n/useTranslation';
import type { TwoFactorEnabled } from '../../api/types';
import { ConfirmWithPasswordDialog } from '../../components/ConfirmWithPasswordDialog';
import { errorText } from '../../i18n/messages';
import { useSetupEmailTwoFactor } from '../../queries/security';

interface EnableEmailDialogProps {
  email: string;
  onClose: () => void;
  /** E-mail codes are on: the backup codes and this session's new token. */
  onEnabled: (result: TwoFactorEnabled) => void;
}

/** Turning on e-mail codes, confirmed with the account password. */
export function EnableEmailDialog({ email, onClose, onEnabled }: EnableEmailDialogProps) {
  const { t } = useTranslation();
  const setup = useSetupEmailTwoFactor();

  return (
    <ConfirmWithPasswordDialog
      title={t('twoFactor.email.enableTitle')}
      passwordId="email-2fa-password"
      submitLabel={t('twoFactor.enable')}
      busyLabel={t('twoFactor.enabling')}
      busy={setup.isPending}
      error={setup.error ? errorText(t, setup.error, 'twoFactor.errors.setupEmail') : null}
      onConfirm={(password) => setup.mutate(password, { onSuccess: onEnabled })}
      onClose={onClose}
    >
      <p>{t('twoFactor.email.enableText', { email })}</p>
    </ConfirmWithPasswordDialog>
  );
}

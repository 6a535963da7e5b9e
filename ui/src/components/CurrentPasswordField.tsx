import { useTranslation } from '../i18n/useTranslation';
import { TextField } from './TextField';

interface CurrentPasswordFieldProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  /** Takes the dialog's first focus. */
  autoFocus?: boolean;
}

/**
 * The account password asked again before a change a stolen session token must not make
 * on its own (two-factor set-up, new backup codes, deleting the account). The dialogs hold
 * the value in their own state, so it is gone when they close.
 */
export function CurrentPasswordField({ id, value, onChange, autoFocus }: CurrentPasswordFieldProps) {
  const { t } = useTranslation();
  return (
    <TextField
      id={id}
      label={t('settings.reauth.label')}
      value={value}
      onChange={onChange}
      type="password"
      autoComplete="current-password"
      required
      hint={t('settings.reauth.hint')}
      autoFocus={autoFocus}
    />
  );
}

import { useTranslation } from 'react-i18next';

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
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{t('settings.reauth.label')}</label>
      <input
        id={id}
        type="password"
        autoComplete="current-password"
        required
        aria-describedby={hintId}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        data-autofocus={autoFocus ? true : undefined}
      />
      <p className="field-hint" id={hintId}>
        {t('settings.reauth.hint')}
      </p>
    </div>
  );
}

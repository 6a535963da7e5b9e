import { useTranslation } from '../i18n/useTranslation';
import { MIN_PASSWORD_LENGTH } from '../auth/passwordRules';

interface NewPasswordFieldsProps {
  /** The fields' ids are `${idPrefix}-password` and `${idPrefix}-confirm`. */
  idPrefix: string;
  passwordLabel: string;
  confirmLabel: string;
  password: string;
  confirmation: string;
  onPasswordChange: (value: string) => void;
  onConfirmationChange: (value: string) => void;
  /** Says under the first field how long a password must be. */
  showRules?: boolean;
  /** The first field takes the dialog's first focus. */
  autoFocus?: boolean;
}

/** A new password, typed twice; `passwordProblem` says what is wrong with the pair. */
export function NewPasswordFields({
  idPrefix,
  passwordLabel,
  confirmLabel,
  password,
  confirmation,
  onPasswordChange,
  onConfirmationChange,
  showRules = false,
  autoFocus = false,
}: NewPasswordFieldsProps) {
  const { t } = useTranslation();
  const passwordId = `${idPrefix}-password`;
  const hintId = `${passwordId}-hint`;
  return (
    <>
      <div className="field">
        <label htmlFor={passwordId}>{passwordLabel}</label>
        <input
          id={passwordId}
          type="password"
          autoComplete="new-password"
          required
          aria-describedby={showRules ? hintId : undefined}
          value={password}
          onChange={(event) => onPasswordChange(event.target.value)}
          data-autofocus={autoFocus ? true : undefined}
        />
        {showRules && (
          <p className="field-hint" id={hintId}>
            {t('register.passwordHint', { min: MIN_PASSWORD_LENGTH })}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-confirm`}>{confirmLabel}</label>
        <input
          id={`${idPrefix}-confirm`}
          type="password"
          autoComplete="new-password"
          required
          value={confirmation}
          onChange={(event) => onConfirmationChange(event.target.value)}
        />
      </div>
    </>
  );
}

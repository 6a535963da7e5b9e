import type { ReactNode } from 'react';

interface TextFieldProps {
  id: string;
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  /** `text` unless given (`password` for a password). */
  type?: 'text' | 'password';
  autoComplete?: string;
  maxLength?: number;
  required?: boolean;
  /** Under the field, and named by it for screen readers. */
  hint?: ReactNode;
  /** Takes the dialog's first focus. */
  autoFocus?: boolean;
}

/** A line of text typed into a form, with its label and hint (NumberField's twin for text). */
export function TextField({ id, label, value, onChange, type = 'text', autoComplete, maxLength, required, hint, autoFocus }: TextFieldProps) {
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        autoComplete={autoComplete}
        maxLength={maxLength}
        required={required}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={hint === undefined ? undefined : hintId}
        data-autofocus={autoFocus ? true : undefined}
      />
      {hint !== undefined && (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      )}
    </div>
  );
}

import type { ReactNode } from 'react';

/**
 * What a number counts: whole containers or items (from 1), a whole number of a schedule's
 * (from 0, bounded by the field's `min` and `max`), a dose (above zero, in thousandths), a
 * stock amount (from zero, in thousandths), or a change to the stock (added or taken away,
 * in thousandths).
 */
export type NumberKind = 'count' | 'whole' | 'dose' | 'stock' | 'stockChange';

const INPUTS: Record<NumberKind, { inputMode: 'numeric' | 'decimal'; min?: number; step: number }> = {
  count: { inputMode: 'numeric', min: 1, step: 1 },
  whole: { inputMode: 'numeric', min: 0, step: 1 },
  dose: { inputMode: 'decimal', min: 0.001, step: 0.001 },
  stock: { inputMode: 'decimal', min: 0, step: 0.001 },
  stockChange: { inputMode: 'decimal', step: 0.001 },
};

interface NumberFieldProps {
  id: string;
  label: ReactNode;
  /** As typed: the forms parse and check it when they are sent. */
  value: string;
  onChange: (value: string) => void;
  kind: NumberKind;
  /** Bounds the kind's own lower bound and, when given, an upper one. */
  min?: number;
  max?: number;
  /** Under the field, and named by it for screen readers. */
  hint?: ReactNode;
  required?: boolean;
  /** Takes the dialog's first focus. */
  autoFocus?: boolean;
}

/** A number typed into a form, with the keyboard, step and lower bound its kind needs. */
export function NumberField({ id, label, value, onChange, kind, min, max, hint, required, autoFocus }: NumberFieldProps) {
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        {...INPUTS[kind]}
        min={min ?? INPUTS[kind].min}
        max={max}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        required={required}
        aria-required={required}
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

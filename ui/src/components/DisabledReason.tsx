/**
 * Why the button it describes cannot be used yet ("Enter your password to continue"): shown
 * next to the button while it is disabled for that reason, and named by the button's
 * aria-describedby (see `disabledBecause`) so a screen reader says it too.
 */
export function DisabledReason({ id, reason }: { id: string; reason: string | null }) {
  if (reason === null) return null;
  return (
    <p id={id} className="field-hint disabled-reason" data-testid="disabled-reason">
      {reason}
    </p>
  );
}

/** The button's side: disabled, described by the reason and titled with it, while there is one. */
export function disabledBecause(id: string, reason: string | null): { 'aria-describedby'?: string; title?: string } {
  return reason === null ? {} : { 'aria-describedby': id, title: reason };
}

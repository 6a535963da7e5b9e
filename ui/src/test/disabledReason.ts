/**
 * What a control says about why it cannot be used: the text of what its aria-describedby
 * names (where `DisabledReason` shows it), or null when it names nothing. Tests check it
 * against the control's title too, which says the same on hover.
 */
export function reasonOf(control: HTMLElement): string | null {
  const ids = control.getAttribute('aria-describedby');
  if (ids === null) return null;
  const said = ids
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ')
    .trim();
  return said === '' ? null : said;
}

/** Whether a control is disabled, and why it says so (its described reason and its title). */
export function disabledState(control: HTMLElement): { disabled: boolean; reason: string | null; title: string | null } {
  return {
    disabled: (control as HTMLButtonElement).disabled,
    reason: reasonOf(control),
    // An empty title says nothing on hover: Preact leaves `title=""` where a title was dropped.
    title: control.getAttribute('title') || null,
  };
}

/** Spec §9: passwords have at least 6 characters. */
export const MIN_PASSWORD_LENGTH = 6;

/** The password rules of spec §5, as translation keys; null when the passwords are fine. */
export function passwordProblem(password: string, confirmation: string): string | null {
  if (password !== confirmation) return 'register.errors.mismatch';
  // Counted in code points, as the server counts.
  if (Array.from(password).length < MIN_PASSWORD_LENGTH) return 'register.errors.tooShort';
  return null;
}

/** Backup codes are 8 characters, each usable once (spec §5, §9). */
export const BACKUP_CODE_LENGTH = 8;

/** What is kept of a typed or pasted backup code: no spaces, at most 8 characters. */
export function cleanBackupCode(input: string): string {
  return input.replace(/\s/g, '').slice(0, BACKUP_CODE_LENGTH);
}

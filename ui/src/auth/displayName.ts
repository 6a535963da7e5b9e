import type { User } from '../api';

/** The person's name as they set it in their profile ("Ada Lovelace"); empty until they do. */
export function displayName(user: User): string {
  return [user.firstName, user.lastName]
    .map((part) => part?.trim() ?? '')
    .filter((part) => part !== '')
    .join(' ');
}

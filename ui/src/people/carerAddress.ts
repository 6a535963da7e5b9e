import type { Carer } from '../api/peopleTypes';

/**
 * The address under a carer's name, or null when the name already is the address (an
 * invitation not yet accepted, or an account that set no name of its own): shown once.
 */
export function addressLine(carer: Pick<Carer, 'name' | 'email'>): string | null {
  const name = carer.name?.trim() ?? '';
  return name === '' || name.toLowerCase() === carer.email.toLowerCase() ? null : carer.email;
}

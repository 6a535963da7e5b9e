// The care circle: people, their carers, invitations and the audit list (/api/people/*,
// /api/invitations/*). Every answer is checked before the app uses it.
import { apiRequest, isJsonObject, type Json } from './client';
import { FormatError, dataOf, num, objects, oneOf, str, strOrNull } from './medicationParse';
import {
  AUDIT_PAGE_SIZE,
  CARER_ROLES,
  CARER_STATUSES,
  ROLES,
  type AuditEntry,
  type Carer,
  type CarerRole,
  type Invitation,
  type Person,
} from './peopleTypes';

function id(value: Json | undefined, what: string): number {
  if (typeof value !== 'number') throw new FormatError(what);
  return value;
}

const numOrNull = (value: Json | undefined) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export function parsePerson(value: Json | undefined): Person {
  if (!isJsonObject(value)) throw new FormatError('person');
  return {
    id: id(value.id, 'person'),
    name: str(value.name),
    is_self: value.is_self === true,
    archived: value.archived === true,
    role: oneOf(ROLES, value.role, 'view'),
    owner_name: str(value.owner_name),
    carer_id: numOrNull(value.carer_id),
    created_at: str(value.created_at),
  };
}

export function parseCarer(value: Json | undefined): Carer {
  if (!isJsonObject(value)) throw new FormatError('carer');
  return {
    id: id(value.id, 'carer'),
    person_id: num(value.person_id),
    email: str(value.email),
    name: strOrNull(value.name),
    user_id: numOrNull(value.user_id),
    role: oneOf(CARER_ROLES, value.role, 'view'),
    status: oneOf(CARER_STATUSES, value.status, 'invited'),
    created_at: str(value.created_at),
    accepted_at: strOrNull(value.accepted_at),
    expires_at: strOrNull(value.expires_at),
    invite_url: strOrNull(value.invite_url),
  };
}

function parseInvitation(value: Json | undefined): Invitation {
  if (!isJsonObject(value)) throw new FormatError('invitation');
  return {
    person_name: str(value.person_name),
    owner_name: str(value.owner_name),
    role: oneOf(CARER_ROLES, value.role, 'view'),
    email: str(value.email),
    expires_at: str(value.expires_at),
  };
}

function parseAuditEntry(value: Json | undefined): AuditEntry {
  if (!isJsonObject(value)) throw new FormatError('audit');
  return {
    id: id(value.id, 'audit'),
    actor_name: str(value.actor_name),
    action: str(value.action),
    subject: str(value.subject),
    created_at: str(value.created_at),
  };
}

function list<T>(value: Json | undefined, parse: (item: Json) => T, what: string): T[] {
  if (!Array.isArray(value)) throw new FormatError(what);
  return objects(value).map(parse);
}

/** Own people (account holder first, archived ones too), then the people the user cares for. */
export async function listPeople(signal?: AbortSignal): Promise<Person[]> {
  return list(dataOf(await apiRequest('/api/people', { signal })), parsePerson, 'people');
}

export async function createPerson(name: string): Promise<Person> {
  return parsePerson(dataOf(await apiRequest('/api/people', { method: 'POST', body: { name } })));
}

export async function updatePerson(personId: number, changes: { name?: string; archived?: boolean }): Promise<Person> {
  return parsePerson(dataOf(await apiRequest(`/api/people/${personId}`, { method: 'PUT', body: changes })));
}

/** Removes the person with their medications, reminders and history. */
export async function deletePerson(personId: number): Promise<void> {
  await apiRequest(`/api/people/${personId}`, { method: 'DELETE' });
}

export async function listCarers(personId: number, signal?: AbortSignal): Promise<Carer[]> {
  return list(dataOf(await apiRequest(`/api/people/${personId}/carers`, { signal })), parseCarer, 'carers');
}

/** Invites (or invites again) an address; the answer carries the link, this once. */
export async function inviteCarer(personId: number, email: string, role: CarerRole): Promise<Carer> {
  const body = await apiRequest(`/api/people/${personId}/carers`, { method: 'POST', body: { email, role } });
  return parseCarer(dataOf(body));
}

export async function updateCarer(personId: number, carerId: number, role: CarerRole): Promise<Carer> {
  const body = await apiRequest(`/api/people/${personId}/carers/${carerId}`, { method: 'PUT', body: { role } });
  return parseCarer(dataOf(body));
}

/** The owner revokes a carer or cancels an invitation; a carer leaves with their own id. */
export async function removeCarer(personId: number, carerId: number): Promise<void> {
  await apiRequest(`/api/people/${personId}/carers/${carerId}`, { method: 'DELETE' });
}

export async function getInvitation(token: string, signal?: AbortSignal): Promise<Invitation> {
  return parseInvitation(dataOf(await apiRequest(`/api/invitations/${encodeURIComponent(token)}`, { signal })));
}

/** What an invitation offers, before signing in: who invites, for whom; the address masked. */
export async function getInvitationPreview(token: string, signal?: AbortSignal): Promise<Invitation> {
  const path = `/api/invitations/${encodeURIComponent(token)}/preview`;
  return parseInvitation(dataOf(await apiRequest(path, { signal, anonymous: true })));
}

/** Accepts an invitation; answers the person now cared for. */
export async function acceptInvitation(token: string): Promise<Person> {
  const body = await apiRequest(`/api/invitations/${encodeURIComponent(token)}/accept`, { method: 'POST' });
  return parsePerson(dataOf(body));
}

/** One page of a person's audit list, newest first (pages count from 1). */
export async function getAudit(personId: number, page: number, signal?: AbortSignal): Promise<AuditEntry[]> {
  const query = new URLSearchParams({
    limit: String(AUDIT_PAGE_SIZE),
    offset: String((Math.max(1, page) - 1) * AUDIT_PAGE_SIZE),
  });
  return list(dataOf(await apiRequest(`/api/people/${personId}/audit?${query}`, { signal })), parseAuditEntry, 'audit');
}

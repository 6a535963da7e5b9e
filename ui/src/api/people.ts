// The care circle: people, their carers, invitations and the audit list (/api/people/*,
// /api/invitations/*).
import { answer, api, callerHeaders, done } from './http';
import { AUDIT_PAGE_SIZE, type AuditEntry, type Carer, type CarerRole, type Invitation, type Person } from './peopleTypes';

const person = (id: number) => ({ path: { id } });
const carer = (id: number, carerId: number) => ({ path: { id, carerId } });
const invitation = (token: string) => ({ path: { token } });

export async function listPeople(signal?: AbortSignal): Promise<Person[]> {
  return (await answer(api.GET('/api/people', { headers: callerHeaders(), signal }))).data;
}

export async function createPerson(name: string): Promise<Person> {
  return (await answer(api.POST('/api/people', { headers: callerHeaders(), body: { name } }))).data;
}

/** What `PUT /api/people/{id}` changes; absent fields stay. */
export type PersonChanges = { name?: string; archived?: boolean; home_assistant?: boolean };

export async function updatePerson(personId: number, changes: PersonChanges): Promise<Person> {
  const params = person(personId);
  return (await answer(api.PUT('/api/people/{id}', { headers: callerHeaders(), params, body: changes }))).data;
}

export async function deletePerson(personId: number): Promise<void> {
  await done(api.DELETE('/api/people/{id}', { headers: callerHeaders(), params: person(personId) }));
}

export async function listCarers(personId: number, signal?: AbortSignal): Promise<Carer[]> {
  const params = person(personId);
  return (await answer(api.GET('/api/people/{id}/carers', { headers: callerHeaders(), params, signal }))).data;
}

export async function inviteCarer(personId: number, email: string, role: CarerRole): Promise<Carer> {
  const params = person(personId);
  return (await answer(api.POST('/api/people/{id}/carers', { headers: callerHeaders(), params, body: { email, role } }))).data;
}

export async function updateCarer(personId: number, carerId: number, role: CarerRole): Promise<Carer> {
  const params = carer(personId, carerId);
  return (await answer(api.PUT('/api/people/{id}/carers/{carerId}', { headers: callerHeaders(), params, body: { role } }))).data;
}

export async function removeCarer(personId: number, carerId: number): Promise<void> {
  await done(api.DELETE('/api/people/{id}/carers/{carerId}', { headers: callerHeaders(), params: carer(personId, carerId) }));
}

export async function getInvitation(token: string, signal?: AbortSignal): Promise<Invitation> {
  const params = invitation(token);
  return (await answer(api.GET('/api/invitations/{token}', { headers: callerHeaders(), params, signal }))).data;
}

export async function getInvitationPreview(token: string, signal?: AbortSignal): Promise<Invitation> {
  return (await answer(api.GET('/api/invitations/{token}/preview', { params: invitation(token), signal }))).data;
}

export async function acceptInvitation(token: string): Promise<Person> {
  const params = invitation(token);
  return (await answer(api.POST('/api/invitations/{token}/accept', { headers: callerHeaders(), params }))).data;
}

export async function getAudit(personId: number, page: number, signal?: AbortSignal): Promise<AuditEntry[]> {
  const params = { ...person(personId), query: { limit: AUDIT_PAGE_SIZE, offset: (Math.max(1, page) - 1) * AUDIT_PAGE_SIZE } };
  return (await answer(api.GET('/api/people/{id}/audit', { headers: callerHeaders(), params, signal }))).data;
}

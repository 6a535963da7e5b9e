// The care circle: people, their carers, invitations and the audit list. A change to people
// or carers also moves what the screens of medications show (whose, and who may change them).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  acceptInvitation,
  createPerson,
  deletePerson,
  getAudit,
  getInvitation,
  getInvitationPreview,
  inviteCarer,
  listCarers,
  removeCarer,
  updateCarer,
  updatePerson,
  type PersonChanges,
} from '../api/people';
import type { CarerRole, Person } from '../api/peopleTypes';
import { peopleQuery } from './firstScreen';
import { everythingChanged, peopleChanged } from './invalidate';
import { queryKeys } from './keys';

export function usePeopleQuery() {
  return useQuery(peopleQuery);
}

export function useCarersQuery(personId: number, enabled = true) {
  return useQuery({
    queryKey: queryKeys.carers(personId),
    queryFn: ({ signal }) => listCarers(personId, signal),
    enabled,
  });
}

export function useAuditQuery(personId: number, page: number) {
  return useQuery({
    queryKey: queryKeys.audit(personId, page),
    queryFn: ({ signal }) => getAudit(personId, page, signal),
    placeholderData: keepPreviousData,
  });
}

export function useInvitationQuery(token: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.invitation(token),
    queryFn: ({ signal }) => getInvitation(token, signal),
    enabled,
  });
}

/** The invitation as its link's holder sees it before signing in. */
export function useInvitationPreviewQuery(token: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.invitationPreview(token),
    queryFn: ({ signal }) => getInvitationPreview(token, signal),
    enabled,
  });
}

function putPerson(list: Person[] | undefined, person: Person): Person[] | undefined {
  if (!list) return list;
  return list.some((p) => p.id === person.id) ? list.map((p) => (p.id === person.id ? person : p)) : [...list, person];
}

export function useCreatePerson() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => createPerson(name),
    onSuccess: (person) => {
      client.setQueryData<Person[]>(queryKeys.people, (list) => putPerson(list, person));
      peopleChanged(client);
    },
  });
}

/** Renames, archives or brings back a person, or shows them in Home Assistant. */
export function useUpdatePerson() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ personId, changes }: { personId: number; changes: PersonChanges }) =>
      updatePerson(personId, changes),
    onSuccess: (person) => {
      client.setQueryData<Person[]>(queryKeys.people, (list) => putPerson(list, person));
      // A name shows on Today and in lists; an archived person leaves Today.
      everythingChanged(client);
    },
  });
}

export function useDeletePerson() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (personId: number) => deletePerson(personId),
    onSuccess: (_nothing, personId) => {
      client.setQueryData<Person[]>(queryKeys.people, (list) => list?.filter((p) => p.id !== personId));
      everythingChanged(client);
    },
  });
}

export function useInviteCarer(personId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ email, role }: { email: string; role: CarerRole }) => inviteCarer(personId, email, role),
    onSuccess: () => void client.invalidateQueries({ queryKey: [...queryKeys.people, personId] }),
  });
}

export function useUpdateCarer(personId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ carerId, role }: { carerId: number; role: CarerRole }) => updateCarer(personId, carerId, role),
    onSuccess: () => void client.invalidateQueries({ queryKey: [...queryKeys.people, personId] }),
  });
}

/** Revokes a carer, cancels an invitation, or (with the viewer's own carer id) leaves. */
export function useRemoveCarer(personId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (carerId: number) => removeCarer(personId, carerId),
    onSuccess: () => peopleChanged(client),
  });
}

export function useAcceptInvitation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => acceptInvitation(token),
    onSuccess: (person) => {
      client.setQueryData<Person[]>(queryKeys.people, (list) => putPerson(list, person));
      peopleChanged(client);
    },
  });
}

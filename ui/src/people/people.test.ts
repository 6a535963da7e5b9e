import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryEntry, TodayDose } from '../api/medicationTypes';
import type { Person } from '../api/peopleTypes';
import { showsPersonNames } from '../components/medications/TodaySchedule';
import { escalationCarers } from '../components/people/EscalationFields';
import {
  emptyMedicationForm,
  escalationFormOf,
  escalationProblem,
  medicationInput,
} from '../medications/medicationForm';
import { givenByOf } from './givenBy';
import { forgetInvitation, pathAfterSignIn, rememberInvitation } from './pendingInvitation';
import { loadPersonChoice, savePersonChoice } from './personChoice';
import { allows, canLog, canManage, medicationOwners, selfPerson } from './roles';

function person(overrides: Partial<Person>): Person {
  return {
    id: 1,
    name: 'Pat',
    is_self: false,
    archived: false,
    role: 'owner',
    owner_name: 'Pat',
    carer_id: null,
    home_assistant: false,
    home_assistant_available: true,
    created_at: '2026-11-01T08:00:00Z',
    ...overrides,
  };
}

afterEach(() => localStorage.clear());

describe('roles', () => {
  it('orders view < record < manage < owner', () => {
    expect(canLog('view')).toBe(false);
    expect(canLog('record')).toBe(true);
    expect(canManage('record')).toBe(false);
    expect(canManage('manage')).toBe(true);
    expect(allows('owner', 'manage')).toBe(true);
    expect(allows('manage', 'owner')).toBe(false);
  });

  it('offers a new medication for own people not archived and cared people with manage only', () => {
    const people = [
      person({ id: 1, is_self: true }),
      person({ id: 2, name: 'Kid', archived: true }),
      person({ id: 3, name: 'Mum', role: 'manage', owner_name: 'Sam', carer_id: 9 }),
      person({ id: 4, name: 'Dad', role: 'record', owner_name: 'Sam', carer_id: 10 }),
    ];
    expect(medicationOwners(people).map((p) => p.id)).toEqual([1, 3]);
    expect(selfPerson(people)?.id).toBe(1);
  });
});

describe('the person chosen in the top bar', () => {
  it('is kept per account on this device, everyone by default', () => {
    expect(loadPersonChoice('7')).toBeNull();
    savePersonChoice('7', 12);
    savePersonChoice('8', 30);
    expect(loadPersonChoice('7')).toBe(12);
    expect(loadPersonChoice('8')).toBe(30);
    savePersonChoice('7', null);
    expect(loadPersonChoice('7')).toBeNull();
    expect(loadPersonChoice('8')).toBe(30);
  });

  it('reads a damaged record as everyone', () => {
    localStorage.setItem('pillbox_person', '{"7": "twelve"');
    expect(loadPersonChoice('7')).toBeNull();
  });
});

describe('an invitation opened while signed out', () => {
  it('is where signing in leads, until it is forgotten', () => {
    expect(pathAfterSignIn()).toBe('/medications');
    rememberInvitation('abc_DEF-123');
    expect(pathAfterSignIn()).toBe('/invite/abc_DEF-123');
    forgetInvitation();
    expect(pathAfterSignIn()).toBe('/medications');
  });

  it('ignores a token that is not one', () => {
    rememberInvitation('../settings?x=1');
    expect(pathAfterSignIn()).toBe('/medications');
  });

  it('else leads back to the page of this app that asked for signing in, never elsewhere', () => {
    expect(pathAfterSignIn('/today')).toBe('/today');
    expect(pathAfterSignIn('/history?page=2')).toBe('/history?page=2');
    for (const elsewhere of ['//evil.example/x', '/\\evil.example/x', 'https://evil.example', '/login']) {
      expect(pathAfterSignIn(elsewhere)).toBe('/medications');
    }
    rememberInvitation('abc');
    expect(pathAfterSignIn('/today')).toBe('/invite/abc');
    forgetInvitation();
  });
});

describe('names on Today and in History', () => {
  const dose = (personId: number | null) => ({ person_id: personId }) as TodayDose;

  it('shows the person only when someone else than the account holder has doses', () => {
    expect(showsPersonNames([dose(1), dose(1)], 1)).toBe(false);
    expect(showsPersonNames([dose(null)], 1)).toBe(false);
    expect(showsPersonNames([dose(1), dose(2)], 1)).toBe(true);
    expect(showsPersonNames([dose(2)], 1)).toBe(true);
  });

  it('says "given by" for a dose someone else logged', () => {
    const entry = (loggedBy: HistoryEntry['logged_by']) => ({ logged_by: loggedBy }) as HistoryEntry;
    expect(givenByOf(entry({ user_id: 9, name: 'Kim' }), 7)).toBe('Kim');
    expect(givenByOf(entry({ user_id: 7, name: 'Pat' }), '7')).toBeNull();
    expect(givenByOf(entry(null), 7)).toBeNull();
    expect(givenByOf(entry({ user_id: null, name: 'Pat' }), 7)).toBeNull();
  });
});

describe('missed-dose escalation in the medication form', () => {
  it('offers accepted carers who can record', () => {
    const carer = {
      id: 1,
      person_id: 3,
      email: 'a@example.com',
      name: 'A',
      user_id: 20,
      role: 'record' as const,
      status: 'active' as const,
      created_at: '',
      accepted_at: '',
      expires_at: null,
      invite_url: null,
    };
    const carers = [
      carer,
      { ...carer, id: 2, user_id: 21, role: 'view' as const },
      { ...carer, id: 3, user_id: null, name: null, status: 'invited' as const },
      { ...carer, id: 4, user_id: 22, role: 'manage' as const },
    ];
    expect(escalationCarers(carers).map((c) => c.user_id)).toEqual([20, 22]);
  });

  it('checks the delay and that someone is told', () => {
    expect(escalationProblem({ enabled: false, afterMinutes: 'x', carers: [] })).toBeNull();
    expect(escalationProblem({ enabled: true, afterMinutes: '4', carers: [20] })?.key).toBe('validation.range');
    expect(escalationProblem({ enabled: true, afterMinutes: '1441', carers: [20] })?.key).toBe('validation.range');
    expect(escalationProblem({ enabled: true, afterMinutes: '30', carers: [] })?.key).toBe(
      'circle:escalation.noCarersChosen',
    );
    expect(escalationProblem({ enabled: true, afterMinutes: '30', carers: [20] })).toBeNull();
  });

  it('sends the person on create and the escalation only when the owner set it', () => {
    const form = {
      ...emptyMedicationForm(4),
      name: 'Digoxin',
      escalation: { enabled: true, afterMinutes: '45', carers: [22, 20] },
    };
    const created = medicationInput(form, true, true);
    expect(created.person_id).toBe(4);
    expect(created.escalation).toEqual({ after_minutes: 45, carers: [20, 22] });
    expect(medicationInput(form, false, false)).not.toHaveProperty('escalation');
    expect(medicationInput(form, false, false)).not.toHaveProperty('person_id');
    expect(medicationInput({ ...form, escalation: escalationFormOf(null) }, false, true).escalation).toBeNull();
  });
});

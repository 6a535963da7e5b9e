// The care circle's shapes (/api/people/*, /api/invitations/*), as the OpenAPI document
// describes them (generated: schema.d.ts).
import type { components } from './schema';

type Schemas = components['schemas'];

/** What the viewer may do with a person's data: their own (owner) or a carer's role. */
export type Role = Schemas['Role'];
export const ROLES = ['owner', 'manage', 'record', 'view'] as const satisfies readonly Role[];

/** The roles an owner gives a carer. */
export type CarerRole = Schemas['CarerRole'];
export const CARER_ROLES = ['view', 'record', 'manage'] as const satisfies readonly CarerRole[];

export type CarerStatus = Schemas['CarerStatus'];
export const CARER_STATUSES = ['invited', 'active'] as const satisfies readonly CarerStatus[];

/** One person: the account holder, someone without a login they look after, or someone they care for. */
export type Person = Schemas['PersonView'];

/** A carer of one of the owner's people, from invitation to acceptance. */
export type Carer = Schemas['CarerView'];

/** What an invitation link shows its addressee. */
export type Invitation = Schemas['InvitationView'];

export type AuditAction =
  | 'dose.logged'
  | 'dose.edited'
  | 'dose.deleted'
  | 'medication.created'
  | 'medication.updated'
  | 'medication.deleted'
  | 'stock.changed'
  | 'carer.invited'
  | 'carer.accepted'
  | 'carer.role_changed'
  | 'carer.revoked'
  | 'carer.left';
export const AUDIT_ACTIONS = [
  'dose.logged',
  'dose.edited',
  'dose.deleted',
  'medication.created',
  'medication.updated',
  'medication.deleted',
  'stock.changed',
  'carer.invited',
  'carer.accepted',
  'carer.role_changed',
  'carer.revoked',
  'carer.left',
] as const satisfies readonly AuditAction[];

export type AuditEntry = Schemas['AuditEntry'];

/** A medication's missed-dose escalation: after how long, to which carers (user ids). */
export type Escalation = Schemas['Escalation'];

/** Who logged a dose (`user_id` null when it was not a signed-in user). */
export type LoggedBy = Schemas['LoggedBy'];

/** The audit page size. */
export const AUDIT_PAGE_SIZE = 25;

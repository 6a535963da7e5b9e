// The care circle's shapes (/api/people/*, /api/invitations/*), as the parsers hand them on.

/** What the viewer may do with a person's data: their own (owner) or a carer's role. */
export type Role = 'owner' | 'manage' | 'record' | 'view';
export const ROLES = ['owner', 'manage', 'record', 'view'] as const satisfies readonly Role[];

/** The roles an owner gives a carer. */
export type CarerRole = Exclude<Role, 'owner'>;
export const CARER_ROLES = ['view', 'record', 'manage'] as const satisfies readonly CarerRole[];

export type CarerStatus = 'invited' | 'active';
export const CARER_STATUSES = ['invited', 'active'] as const satisfies readonly CarerStatus[];

/** One person: the account holder, someone without a login they look after, or someone they care for. */
export interface Person {
  id: number;
  name: string;
  /** The account holder's own person (cannot be archived or deleted). */
  is_self: boolean;
  archived: boolean;
  role: Role;
  /** The display name of the account the person belongs to. */
  owner_name: string;
  /** The viewer's own carer row for a person they care for (to leave); null for their own people. */
  carer_id: number | null;
  created_at: string;
}

export interface Carer {
  id: number;
  person_id: number;
  email: string;
  /** Null until the invitation is accepted. */
  name: string | null;
  /** The carer's account, once accepted (escalation names carers by it). */
  user_id: number | null;
  role: CarerRole;
  status: CarerStatus;
  created_at: string;
  accepted_at: string | null;
  expires_at: string | null;
  /** Only in the answer to an invitation: the link to pass on by hand. */
  invite_url: string | null;
}

export interface Invitation {
  person_name: string;
  owner_name: string;
  role: CarerRole;
  email: string;
  expires_at: string;
}

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

export interface AuditEntry {
  id: number;
  actor_name: string;
  /** A known action, or the server's own word for a newer one. */
  action: string;
  subject: string;
  created_at: string;
}

/** A medication's missed-dose escalation: after how long, to which carers (user ids). */
export interface Escalation {
  after_minutes: number;
  carers: number[];
}

/** Who logged a dose: a user of this instance (null for a take link of the account holder). */
export interface LoggedBy {
  user_id: number | null;
  name: string;
}

/** The audit page size. */
export const AUDIT_PAGE_SIZE = 25;

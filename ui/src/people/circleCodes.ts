import type { CodeKeys } from '../i18n/messages';

/** The care circle's codes, translated in the `circle` namespace. */
export const CIRCLE_CODE_KEYS: CodeKeys = {
  person_not_found: 'errors.personNotFound',
  person_name_required: 'errors.nameRequired',
  person_is_account_holder: 'errors.accountHolder',
  not_permitted: 'errors.notPermitted',
  carer_not_found: 'errors.carerNotFound',
  carer_exists: 'errors.carerExists',
  carer_is_owner: 'errors.carerIsOwner',
  role_invalid: 'errors.roleInvalid',
  invitation_not_found: 'errors.invitationNotFound',
  invitation_other_account: 'errors.invitationOtherAccount',
  escalation_invalid: 'errors.escalationInvalid',
};

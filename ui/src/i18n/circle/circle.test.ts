import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, CARER_ROLES } from '../../api/peopleTypes';
import { CIRCLE_CODE_KEYS } from '../../people/circleCodes';
import { checkTranslations, flatten } from '../../test/translations';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fr from './fr.json';

const english = checkTranslations('care circle', { en, es, fr, de }, { maxCopied: 4 });

describe('care circle texts', () => {
  it('names every audit action the server writes', () => {
    for (const action of AUDIT_ACTIONS) expect(english).toHaveProperty([`audit.actions.${action.replace('.', '_')}`]);
  });

  it('explains every role in one line', () => {
    for (const role of CARER_ROLES) {
      expect(english[`roles.${role}.name`]).toBeTruthy();
      expect(english[`roles.${role}.explain`]).not.toContain('\n');
    }
  });

  it('has a text for every care circle error code', () => {
    const flat = flatten(en);
    for (const key of Object.values(CIRCLE_CODE_KEYS)) expect(flat, key).toHaveProperty([key]);
  });
});

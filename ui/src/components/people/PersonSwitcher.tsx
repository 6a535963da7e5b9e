import { useTranslation } from '../../i18n/useTranslation';
import type { Person } from '../../api/peopleTypes';
import { usePersonScope } from '../../people/PersonScopeContext';
import { switchablePeople } from '../../people/roles';

/** How a person reads in a list: their name, and whose circle they are in when not one's own. */
export function usePersonLabel(): (person: Person) => string {
  const { t } = useTranslation('circle');
  return (person) =>
    person.role === 'owner' ? person.name : t('person.caredLabel', { name: person.name, owner: person.owner_name });
}

/**
 * The top bar's choice of whose medications, history and adherence the screens show:
 * everyone, or one person (the choice is kept on this device).
 */
export function PersonSwitcher({ people }: { people: Person[] }) {
  const { t } = useTranslation('circle');
  const { scope, setScope } = usePersonScope();
  const label = usePersonLabel();
  const { active, archived } = switchablePeople(people);
  return (
    <div className="person-switcher">
      <label htmlFor="person-switcher">{t('switcher.label')}</label>
      <select
        id="person-switcher"
        data-testid="person-switcher"
        value={scope === null ? '' : String(scope)}
        onChange={(event) => setScope(event.target.value === '' ? null : Number(event.target.value))}
      >
        <option value="">{t('switcher.everyone')}</option>
        {active.map((person) => (
          <option key={person.id} value={person.id}>
            {label(person)}
          </option>
        ))}
        {archived.length > 0 && (
          <optgroup label={t('switcher.archived')}>
            {archived.map((person) => (
              <option key={person.id} value={person.id}>
                {label(person)}
              </option>
            ))}
          </optgroup>
        )}
      </select>
    </div>
  );
}

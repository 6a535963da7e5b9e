import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, useLocation } from 'react-router-dom';
import type { Person } from '../api/peopleTypes';
import { FormError } from '../components/medications/FormError';
import { PlusIcon } from '../components/medications/MedicationIcon';
import { ScreenStatus } from '../components/medications/ScreenStatus';
import { circleErrorText } from '../people/errors';
import { useCreatePerson, usePeopleQuery } from '../queries/people';
import '../styles/medications.css';
import '../styles/people.css';

/** The longest name the server keeps. */
export const MAX_PERSON_NAME = 100;

function PersonRow({ person }: { person: Person }) {
  const { t } = useTranslation('circle');
  const own = person.role === 'owner';
  return (
    <li className="person-row" data-testid="person-row">
      <Link to={`/people/${person.id}`} className="person-link">
        <span className="avatar" aria-hidden="true">
          {person.name.charAt(0).toUpperCase() || '?'}
        </span>
        <span className="person-text">
          <span className="person-name">{person.name}</span>
          <span className="muted">
            {own
              ? person.is_self
                ? t('people.you')
                : t('people.noLogin')
              : t('people.caredBy', { owner: person.owner_name, role: t(`roles.${person.role}.name`) })}
          </span>
        </span>
        {person.archived && <span className="badge">{t('people.archived')}</span>}
      </Link>
    </li>
  );
}

/**
 * The people of the account (the account holder and those without a login they look after)
 * and the people the user helps care for; adding a person.
 */
export function PeopleScreen() {
  const { t } = useTranslation('circle');
  const query = usePeopleQuery();
  // A person deleted on their own page comes back here with their name.
  const state: unknown = useLocation().state;
  const deleted =
    typeof state === 'object' && state !== null && 'deleted' in state && typeof state.deleted === 'string'
      ? state.deleted
      : null;
  const create = useCreatePerson();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const people = query.data ?? null;
  const own = people?.filter((p) => p.role === 'owner') ?? [];
  const cared = people?.filter((p) => p.role !== 'owner') ?? [];

  const add = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAdded(null);
    const trimmed = name.trim();
    if (trimmed === '') {
      setError(t('errors.nameRequired'));
      return;
    }
    setError(null);
    try {
      const person = await create.mutateAsync(trimmed);
      setName('');
      setAdded(t('people.added', { name: person.name }));
    } catch (err) {
      setError(circleErrorText(err, 'people.addFailed'));
    }
  };

  return (
    <div className="screen">
      <header className="screen-header">
        <h1>{t('people.title')}</h1>
        <p className="screen-subtitle">{t('people.subtitle')}</p>
      </header>

      {deleted && (
        <p className="form-success" role="status">
          {t('person.deleted', { name: deleted })}
        </p>
      )}

      <ScreenStatus
        loading={query.isPending}
        error={query.error ? circleErrorText(query.error, 'people.loadFailed') : null}
        onRetry={() => void query.refetch()}
      />

      {people && (
        <div className="people-sections">
          <section className="card" aria-labelledby="own-people-title">
            <h2 id="own-people-title" className="card-heading">
              {t('people.ownTitle')}
            </h2>
            <ul className="person-list" data-testid="own-people">
              {own.map((person) => (
                <PersonRow key={person.id} person={person} />
              ))}
            </ul>
            <form className="form form-tight person-add" noValidate onSubmit={(event) => void add(event)}>
              <FormError text={error} />
              {added && (
                <p className="form-success" role="status">
                  {added}
                </p>
              )}
              <div className="field">
                <label htmlFor="new-person-name">{t('people.newName')}</label>
                <input
                  id="new-person-name"
                  value={name}
                  maxLength={MAX_PERSON_NAME}
                  autoComplete="off"
                  aria-describedby="new-person-hint"
                  onChange={(event) => setName(event.target.value)}
                />
                <span id="new-person-hint" className="field-hint">
                  {t('people.newHint')}
                </span>
              </div>
              <div>
                <button type="submit" className="button button-primary" disabled={create.isPending}>
                  <PlusIcon />
                  {create.isPending ? t('common.saving') : t('people.add')}
                </button>
              </div>
            </form>
          </section>

          <section className="card" aria-labelledby="cared-people-title">
            <h2 id="cared-people-title" className="card-heading">
              {t('people.caredTitle')}
            </h2>
            {cared.length === 0 ? (
              <p className="card-text">{t('people.caredEmpty')}</p>
            ) : (
              <ul className="person-list" data-testid="cared-people">
                {cared.map((person) => (
                  <PersonRow key={person.id} person={person} />
                ))}
              </ul>
            )}
          </section>
        </div>
      )}
    </div>
  );
}

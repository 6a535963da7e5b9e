import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, useNavigate, useParams } from 'react-router-dom';
import type { Person } from '../api/peopleTypes';
import { Dialog } from '../components/Dialog';
import { FlashMessage } from '../components/FlashMessage';
import { ConfirmDialog } from '../components/medications/ConfirmDialog';
import { SwitchField } from '../components/notifications/preferenceFields';
import { FormError } from '../components/medications/FormError';
import { ScreenStatus } from '../components/medications/ScreenStatus';
import { AuditCard } from '../components/people/AuditCard';
import { CarersCard } from '../components/people/CarersCard';
import { useFlash } from '../components/useFlash';
import { circleErrorText } from '../people/errors';
import { usePersonScope } from '../people/PersonScopeContext';
import { useDeletePerson, usePeopleQuery, useRemoveCarer, useUpdatePerson } from '../queries/people';
import { MAX_PERSON_NAME } from './PeopleScreen';
import '../styles/medications.css';
import '../styles/people.css';
import '../styles/preferences.css';

/** "Delete": says what goes with the person, and offers archiving instead. */
interface DeletePersonDialogProps {
  person: Person;
  onClose: () => void;
  onArchived: () => void;
  onDeleted: () => void;
}

function DeletePersonDialog({ person, onClose, onArchived, onDeleted }: DeletePersonDialogProps) {
  const { t } = useTranslation('circle');
  const remove = useDeletePerson();
  const update = useUpdatePerson();
  const [error, setError] = useState<string | null>(null);
  const busy = remove.isPending || update.isPending;

  const archive = async () => {
    setError(null);
    try {
      await update.mutateAsync({ personId: person.id, changes: { archived: true } });
      onArchived();
    } catch (err) {
      setError(circleErrorText(err, 'person.saveFailed'));
    }
  };

  const destroy = async () => {
    setError(null);
    try {
      await remove.mutateAsync(person.id);
      onDeleted();
    } catch (err) {
      setError(circleErrorText(err, 'person.deleteFailed'));
    }
  };

  return (
    <Dialog
      title={t('person.deleteTitle', { name: person.name })}
      onClose={busy ? undefined : onClose}
      className="dialog-danger"
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy} data-autofocus>
            {t('common.cancel')}
          </button>
          {!person.archived && (
            <button type="button" className="button button-secondary" onClick={() => void archive()} disabled={busy}>
              {t('person.archiveInstead')}
            </button>
          )}
          <button type="button" className="button button-danger" onClick={() => void destroy()} disabled={busy}>
            {remove.isPending ? t('person.deleting') : t('person.delete')}
          </button>
        </>
      }
    >
      <FormError text={error} />
      <p>{t('person.deleteText', { name: person.name })}</p>
      {!person.archived && <p className="muted">{t('person.archiveHint')}</p>}
    </Dialog>
  );
}

/**
 * "Show in Home Assistant": the owner's choice, off by default, so that a shared MQTT broker
 * sees nobody's medicines unasked. Takes effect when the server has an MQTT broker set, and
 * says so when it has none.
 */
function HomeAssistantCard({ person }: { person: Person }) {
  const { t } = useTranslation('circle');
  const update = useUpdatePerson();
  const [flash, showFlash] = useFlash();

  const setShown = async (shown: boolean) => {
    try {
      await update.mutateAsync({ personId: person.id, changes: { home_assistant: shown } });
      // Said as it is: on a server without a broker, the choice waits for one.
      const said = !shown
        ? 'person.homeAssistantOff'
        : person.home_assistant_available
          ? 'person.homeAssistantOn'
          : 'person.homeAssistantOnLater';
      showFlash('success', t(said, { name: person.name }));
    } catch (err) {
      showFlash('error', circleErrorText(err, 'person.saveFailed'));
    }
  };

  return (
    <section className="card" aria-labelledby="person-home-assistant-title">
      <h2 id="person-home-assistant-title" className="card-heading">
        {t('person.homeAssistantTitle')}
      </h2>
      <FlashMessage flash={flash} />
      <SwitchField
        label={t('person.homeAssistantShow')}
        hint={t('person.homeAssistantHint')}
        checked={person.home_assistant}
        disabled={update.isPending}
        onChange={(shown) => void setShown(shown)}
      />
      {!person.home_assistant_available && (
        <p className="field-hint" data-testid="home-assistant-no-broker">
          {t('person.homeAssistantNoBroker')}
        </p>
      )}
    </section>
  );
}

/** The owner's view of one of their people: name, archive, delete, Home Assistant, carers, audit. */
function OwnPerson({ person }: { person: Person }) {
  const { t } = useTranslation('circle');
  const navigate = useNavigate();
  const update = useUpdatePerson();
  const [name, setName] = useState(person.name);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [flash, showFlash] = useFlash();

  const rename = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed === '') {
      setError(t('errors.nameRequired'));
      return;
    }
    setError(null);
    try {
      const saved = await update.mutateAsync({ personId: person.id, changes: { name: trimmed } });
      showFlash('success', t('person.renamed', { name: saved.name }));
    } catch (err) {
      setError(circleErrorText(err, 'person.saveFailed'));
    }
  };

  const setArchived = async (archived: boolean) => {
    try {
      await update.mutateAsync({ personId: person.id, changes: { archived } });
      showFlash(
        'success',
        archived ? t('person.archivedDone', { name: person.name }) : t('person.unarchived', { name: person.name }),
      );
    } catch (err) {
      showFlash('error', circleErrorText(err, 'person.saveFailed'));
    }
  };

  return (
    <>
      <section className="card" aria-labelledby="person-details-title">
        <h2 id="person-details-title" className="card-heading">
          {t('person.detailsTitle')}
        </h2>
        <FlashMessage flash={flash} />
        {person.is_self ? (
          <p className="card-text">{t('person.selfText')}</p>
        ) : (
          <form className="form form-tight" noValidate onSubmit={(event) => void rename(event)}>
            <FormError text={error} />
            <div className="field">
              <label htmlFor="person-name">{t('person.name')}</label>
              <input
                id="person-name"
                value={name}
                maxLength={MAX_PERSON_NAME}
                autoComplete="off"
                onChange={(event) => setName(event.target.value)}
              />
            </div>
            <div>
              <button type="submit" className="button button-primary" disabled={update.isPending}>
                {t('person.rename')}
              </button>
            </div>
          </form>
        )}
        {!person.is_self && (
          <div className="person-actions">
            <button
              type="button"
              className="button button-secondary"
              disabled={update.isPending}
              onClick={() => void setArchived(!person.archived)}
            >
              {person.archived ? t('person.unarchive') : t('person.archive')}
            </button>
            <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
              {t('person.delete')}
            </button>
          </div>
        )}
        {person.archived && <p className="muted">{t('person.archivedText')}</p>}
      </section>

      <HomeAssistantCard person={person} />
      <CarersCard person={person} />
      <AuditCard personId={person.id} />

      {deleting && (
        <DeletePersonDialog
          person={person}
          onClose={() => setDeleting(false)}
          onArchived={() => {
            setDeleting(false);
            showFlash('success', t('person.archivedDone', { name: person.name }));
          }}
          onDeleted={() => void navigate('/people', { replace: true, state: { deleted: person.name } })}
        />
      )}
    </>
  );
}

/** A carer's view of a person they help with: their role, and leaving. */
function CaredPerson({ person }: { person: Person }) {
  const { t } = useTranslation('circle');
  const navigate = useNavigate();
  const leave = useRemoveCarer(person.id);
  const [leaving, setLeaving] = useState(false);
  const carerId = person.carer_id;

  const confirmLeave = async () => {
    if (carerId === null) return;
    try {
      await leave.mutateAsync(carerId);
    } catch (err) {
      throw new Error(circleErrorText(err, 'person.leaveFailed'), { cause: err });
    }
    void navigate('/people', { replace: true });
  };

  return (
    <section className="card" aria-labelledby="cared-title">
      <h2 id="cared-title" className="card-heading">
        {t('person.caredTitle')}
      </h2>
      <p className="card-text">
        {t('person.caredText', { name: person.name, owner: person.owner_name, role: t(`roles.${person.role}.name`) })}
      </p>
      <p className="card-text">{t(`roles.${person.role}.explain`)}</p>
      {carerId !== null && (
        <div>
          <button type="button" className="button button-danger" onClick={() => setLeaving(true)}>
            {t('person.leave')}
          </button>
        </div>
      )}
      {leaving && (
        <ConfirmDialog
          title={t('person.leaveTitle', { name: person.name })}
          confirmLabel={t('person.leave')}
          busyLabel={t('common.saving')}
          onConfirm={confirmLeave}
          onClose={() => setLeaving(false)}
        >
          <p>{t('person.leaveText', { name: person.name, owner: person.owner_name })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** One person (/people/:id): the owner manages them and their carers; a carer sees their role. */
export function PersonScreen() {
  const { t } = useTranslation('circle');
  const { personId } = useParams();
  const navigate = useNavigate();
  const { setScope } = usePersonScope();
  const query = usePeopleQuery();
  const person = query.data?.find((p) => String(p.id) === personId) ?? null;

  const showMedications = () => {
    if (!person) return;
    setScope(person.id);
    void navigate('/medications');
  };

  return (
    <div className="screen">
      <p>
        <Link to="/people">{t('person.back')}</Link>
      </p>
      <header className="screen-header screen-header-row">
        <h1>{person?.name ?? t('people.title')}</h1>
        {person && (
          <button type="button" className="button button-secondary" onClick={showMedications}>
            {t('person.showMedications')}
          </button>
        )}
      </header>
      <ScreenStatus
        loading={query.isPending}
        error={query.error ? circleErrorText(query.error, 'people.loadFailed') : null}
        onRetry={() => void query.refetch()}
      />
      {query.data && !person && (
        <div className="empty-state" data-testid="empty-state">
          <p className="empty-title">{t('errors.personNotFound')}</p>
        </div>
      )}
      {person && (
        <div className="people-sections">
          {person.role === 'owner' ? <OwnPerson key={person.id} person={person} /> : <CaredPerson person={person} />}
        </div>
      )}
    </div>
  );
}

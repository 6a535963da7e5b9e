import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { CARER_ROLES, type Carer, type CarerRole, type Person } from '../../api/peopleTypes';
import { addressLine } from '../../people/carerAddress';
import { circleErrorText } from '../../people/errors';
import { useCarersQuery, useInviteCarer, useRemoveCarer, useUpdateCarer } from '../../queries/people';
import { CopyButton } from '../CopyButton';
import { FlashMessage } from '../FlashMessage';
import { ConfirmDialog } from '../medications/ConfirmDialog';
import { FormError } from '../medications/FormError';
import { ScreenStatus } from '../medications/ScreenStatus';
import { useMedsFormat } from '../medications/useMedsFormat';
import { useFlash } from '../useFlash';

/** The three roles with their one-line explanations, as radios. */
function RoleChoice({ name, value, onChange }: { name: string; value: CarerRole; onChange: (role: CarerRole) => void }) {
  const { t } = useTranslation('circle');
  return (
    <fieldset className="choice-group">
      <legend>{t('carers.role')}</legend>
      {CARER_ROLES.map((role) => (
        <label key={role} className="choice">
          <input type="radio" name={name} value={role} checked={value === role} onChange={() => onChange(role)} />
          <span>
            <strong>{t(`roles.${role}.name`)}</strong> <span className="muted">{t(`roles.${role}.explain`)}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

function CarerRow({ person, carer, onRemove }: { person: Person; carer: Carer; onRemove: () => void }) {
  const { t } = useTranslation('circle');
  const format = useMedsFormat();
  const update = useUpdateCarer(person.id);
  // The role chosen in the select, waiting for the owner to confirm it.
  const [newRole, setNewRole] = useState<CarerRole | null>(null);
  const who = carer.name ?? carer.email;
  const address = addressLine(carer);
  const invited = carer.status === 'invited';

  const confirmRole = async () => {
    if (!newRole) return;
    try {
      await update.mutateAsync({ carerId: carer.id, role: newRole });
    } catch (err) {
      throw new Error(circleErrorText(err, 'carers.roleFailed'), { cause: err });
    }
    setNewRole(null);
  };

  return (
    <li className="carer-row" data-testid="carer-row">
      <div className="carer-text">
        <span className="person-name">{who}</span>
        {address && <span className="muted break-anywhere">{address}</span>}
        <span className="carer-status">
          <span className={invited ? 'badge' : 'badge badge-on'} data-testid="carer-status">
            {t(`carers.status.${carer.status}`)}
          </span>{' '}
          <span className="muted">
            {invited
              ? carer.expires_at && t('carers.expires', { date: format.dateTime(carer.expires_at) })
              : carer.accepted_at && t('carers.since', { date: format.dateTime(carer.accepted_at) })}
          </span>
        </span>
      </div>
      <div className="carer-actions">
        <label className="visually-hidden" htmlFor={`carer-role-${carer.id}`}>
          {t('carers.roleOf', { name: who })}
        </label>
        <select
          id={`carer-role-${carer.id}`}
          value={carer.role}
          disabled={update.isPending}
          onChange={(event) => {
            const role = CARER_ROLES.find((r) => r === event.target.value);
            if (role && role !== carer.role) setNewRole(role);
          }}
        >
          {CARER_ROLES.map((role) => (
            <option key={role} value={role}>
              {t(`roles.${role}.name`)}
            </option>
          ))}
        </select>
        <button type="button" className="button button-secondary button-small" onClick={onRemove}>
          {invited ? t('carers.cancelInvitation') : t('carers.revoke')}
        </button>
      </div>
      {newRole && (
        <ConfirmDialog
          title={t('carers.changeRoleTitle')}
          confirmLabel={t('carers.changeRole')}
          busyLabel={t('common.saving')}
          onConfirm={confirmRole}
          onClose={() => setNewRole(null)}
        >
          <p>
            {t('carers.changeRoleText', {
              name: who,
              person: person.name,
              role: t(`roles.${newRole}.name`),
              explain: t(`roles.${newRole}.explain`),
            })}
          </p>
        </ConfirmDialog>
      )}
    </li>
  );
}

/**
 * The carers of one of the owner's people: who, with which role, invited or active; inviting
 * by e-mail (with the link to pass on by hand), changing a role, revoking.
 */
export function CarersCard({ person }: { person: Person }) {
  const { t } = useTranslation('circle');
  const query = useCarersQuery(person.id);
  const invite = useInviteCarer(person.id);
  const remove = useRemoveCarer(person.id);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<CarerRole>('record');
  const [error, setError] = useState<string | null>(null);
  const [invited, setInvited] = useState<Carer | null>(null);
  const [removing, setRemoving] = useState<Carer | null>(null);
  const [flash, showFlash] = useFlash();
  const carers = query.data ?? null;

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const address = email.trim();
    if (address === '') {
      setError(t('carers.emailRequired'));
      return;
    }
    setError(null);
    setInvited(null);
    try {
      const carer = await invite.mutateAsync({ email: address, role });
      setEmail('');
      setInvited(carer);
    } catch (err) {
      setError(circleErrorText(err, 'carers.inviteFailed'));
    }
  };

  const confirmRemove = async () => {
    if (!removing) return;
    try {
      await remove.mutateAsync(removing.id);
    } catch (err) {
      throw new Error(circleErrorText(err, 'carers.removeFailed'), { cause: err });
    }
    showFlash(
      'success',
      removing.status === 'invited'
        ? t('carers.cancelled', { email: removing.email })
        : t('carers.revoked', { name: removing.name ?? removing.email }),
    );
    if (invited?.id === removing.id) setInvited(null);
    setRemoving(null);
  };

  return (
    <section className="card" aria-labelledby="carers-title" data-testid="carers-card">
      <h2 id="carers-title" className="card-heading">
        {t('carers.title')}
      </h2>
      <p className="card-text">{t('carers.intro', { name: person.name })}</p>
      <FlashMessage flash={flash} />
      <ScreenStatus
        loading={query.isPending}
        error={query.error ? circleErrorText(query.error, 'carers.loadFailed') : null}
        onRetry={() => void query.refetch()}
      />
      {carers?.length === 0 && <p className="muted">{t('carers.empty')}</p>}
      {carers && carers.length > 0 && (
        <ul className="person-list" data-testid="carer-list">
          {carers.map((carer) => (
            <CarerRow key={carer.id} person={person} carer={carer} onRemove={() => setRemoving(carer)} />
          ))}
        </ul>
      )}

      <form className="form form-tight subsection" noValidate onSubmit={(event) => void submit(event)}>
        <h3>{t('carers.inviteTitle')}</h3>
        <FormError text={error} />
        <div className="field">
          <label htmlFor="carer-email">{t('carers.email')}</label>
          <input
            id="carer-email"
            type="email"
            autoComplete="off"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </div>
        <RoleChoice name="carer-role" value={role} onChange={setRole} />
        <div>
          <button type="submit" className="button button-primary" disabled={invite.isPending}>
            {invite.isPending ? t('carers.inviting') : t('carers.invite')}
          </button>
        </div>
      </form>

      {invited && (
        <div className="invite-link" data-testid="invite-link">
          <p className="form-success" role="status">
            {t('carers.invited', { email: invited.email })}
          </p>
          {invited.invite_url && (
            <>
              <label htmlFor="invite-url">{t('carers.linkLabel')}</label>
              <input
                id="invite-url"
                className="mono"
                readOnly
                value={invited.invite_url}
                onFocus={(event) => event.target.select()}
              />
              <p className="field-hint">{t('carers.linkHint')}</p>
              <CopyButton text={invited.invite_url} label={t('carers.copyLink')} />
            </>
          )}
        </div>
      )}

      {removing && (
        <ConfirmDialog
          title={removing.status === 'invited' ? t('carers.cancelTitle') : t('carers.revokeTitle')}
          confirmLabel={removing.status === 'invited' ? t('carers.cancelInvitation') : t('carers.revoke')}
          busyLabel={t('common.saving')}
          onConfirm={confirmRemove}
          onClose={() => setRemoving(null)}
        >
          <p>
            {removing.status === 'invited'
              ? t('carers.cancelText', { email: removing.email })
              : t('carers.revokeText', { name: removing.name ?? removing.email, person: person.name })}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

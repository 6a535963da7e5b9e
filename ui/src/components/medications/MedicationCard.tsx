import { useId, useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Medication } from '../../api/medicationTypes';
import type { Role } from '../../api/peopleTypes';
import { canLog, canManage } from '../../people/roles';
import { problemText } from '../../medications/errors';
import { recordErrorText } from '../../medications/recordErrors';
import {
  medicationFormOf,
  medicationInput,
  medicationProblem,
  type MedicationForm,
} from '../../medications/medicationForm';
import { useUpdateMedication } from '../../queries/medications';
import { NotificationPreferencesDialog } from '../notifications/NotificationPreferencesDialog';
import { DeleteMedicationDialog } from './DeleteMedicationDialog';
import { DeliveryWarning } from './DeliveryWarning';
import { FormError } from './FormError';
import { InventoryDialog } from './InventoryDialog';
import { MedicationFields } from './MedicationFields';
import { NextDoseAllowed } from './NextDoseAllowed';
import { PrescriptionLine } from './PrescriptionLine';
import { BellSmallIcon, BoxIcon, EditIcon, MedicationAvatar, TrashIcon } from './MedicationIcon';
import { StockLine } from './StockLine';
import { useMedsFormat } from './useMedsFormat';

interface MedicationCardProps {
  medication: Medication;
  onDeleted: (id: number) => void;
  /** Something changed that only a reload shows (the stock after an adjustment). */
  onStale: () => void;
  /** The viewer's role on its person: only manage and owner change it. */
  role?: Role;
  /** Whose medication, when the screen shows more than one person's. */
  person?: string | null;
}

type OpenDialog = 'inventory' | 'notifications' | 'delete' | null;

/** One medication: view mode, or edit mode in place (SPEC §2 "Medications screen"). */
export function MedicationCard({ medication, onDeleted, onStale, role = 'owner', person = null }: MedicationCardProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const titleId = useId();
  const [editForm, setEditForm] = useState<MedicationForm | null>(null);
  const update = useUpdateMedication();
  const saving = update.isPending;
  const [error, setError] = useState<string | null>(null);
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const m = medication;
  const manages = canManage(role);
  // Reminder settings belong to the account; a carer's own reminders are not set here.
  const own = role === 'owner';
  // As-needed doses are never missed.
  const escalationEditable = own && editForm?.frequency !== 'as_needed';

  const startEditing = () => {
    setError(null);
    setEditForm(medicationFormOf(m));
  };

  const save = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!editForm) return;
    const problem = medicationProblem(editForm);
    if (problem) {
      setError(problemText(t, problem));
      return;
    }
    setError(null);
    try {
      await update.mutateAsync({ id: m.id, changes: medicationInput(editForm, false, escalationEditable) });
      setEditForm(null);
    } catch (err) {
      setError(recordErrorText(t, err, 'errors.update'));
    }
  };

  if (editForm) {
    return (
      <article className="card med-card med-card-editing" aria-labelledby={titleId} data-testid="medication-card">
        <h2 id={titleId} className="med-card-edit-title">
          {t('edit.title', { name: m.name })}
        </h2>
        <form className="form form-tight" noValidate onSubmit={(event) => void save(event)}>
          <FormError text={error} />
          <MedicationFields
            idPrefix={`edit-${m.id}`}
            personId={m.person_id}
            escalationEditable={escalationEditable}
            form={editForm}
            onChange={(changes) => setEditForm((f) => (f ? { ...f, ...changes } : f))}
          />
          <div className="button-row">
            <button type="submit" className="button button-primary" disabled={saving}>
              {saving ? t('common.saving') : t('edit.save')}
            </button>
            <button
              type="button"
              className="button button-secondary"
              onClick={() => setEditForm(null)}
              disabled={saving}
            >
              {t('common.cancel')}
            </button>
          </div>
        </form>
      </article>
    );
  }

  return (
    <article className="card med-card" aria-labelledby={titleId} data-testid="medication-card">
      <header className="med-card-header">
        <MedicationAvatar icon={m.icon} color={m.color} />
        <div className="med-card-title">
          {person && (
            <p className="person-tag" data-testid="medication-person">
              {person}
            </p>
          )}
          <h2 id={titleId}>{m.name}</h2>
          <p className="med-dosage">{format.amount(m.default_quantity, m.unit)}</p>
        </div>
        <span className="med-card-icons">
          {own && (
            <button
              type="button"
              className="icon-button"
              onClick={() => setDialog('notifications')}
              aria-label={t('card.notificationsFor', { name: m.name })}
              title={t('card.notifications')}
            >
              <BellSmallIcon />
            </button>
          )}
          {manages && (
            <button
              type="button"
              className="icon-button med-delete"
              onClick={() => setDialog('delete')}
              aria-label={t('card.deleteFor', { name: m.name })}
              title={t('card.delete')}
            >
              <TrashIcon />
            </button>
          )}
        </span>
      </header>
      <p className="med-schedule">{format.schedule(m)}</p>
      <NextDoseAllowed at={m.next_dose_allowed_at} />
      {m.notes !== '' && <p className="med-notes">{m.notes}</p>}
      <StockLine inventory={m.inventory} showForecast />
      <PrescriptionLine medication={m} canOrder={canLog(role)} />
      {own && <DeliveryWarning medication={m} onSettingsClosed={onStale} />}
      <FormError text={error} />
      {manages && (
        <div className="med-card-actions">
          <button type="button" className="button button-secondary button-small" onClick={startEditing}>
            <EditIcon />
            {t('card.edit')}
          </button>
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => setDialog('inventory')}
          >
            <BoxIcon />
            {t('card.inventory')}
          </button>
        </div>
      )}

      {dialog === 'inventory' && (
        <InventoryDialog
          medication={m}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog === 'notifications' && (
        <NotificationPreferencesDialog medication={m} onClose={() => setDialog(null)} />
      )}
      {dialog === 'delete' && (
        <DeleteMedicationDialog
          medication={m}
          onClose={() => setDialog(null)}
          onDeleted={() => {
            setDialog(null);
            onDeleted(m.id);
          }}
        />
      )}
    </article>
  );
}

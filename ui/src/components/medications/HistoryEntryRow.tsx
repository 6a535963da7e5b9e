import { useTranslation } from '../../i18n/useTranslation';
import { DOSE_STATUSES, type DoseStatus, type HistoryEntry } from '../../api/medicationTypes';
import { DoseStatusBadge } from './Badges';
import { TrashIcon } from './MedicationIcon';
import { useMedsFormat } from './useMedsFormat';

interface HistoryEntryRowProps {
  entry: HistoryEntry;
  when: string;
  busy: boolean;
  /** Whether the viewer may change or delete it (a carer with the view role may not). */
  canEdit?: boolean;
  /** Who logged it, when that was someone other than the viewer. */
  givenBy?: string | null;
  /** Whose dose, when the screen shows more than one person's. */
  person?: string | null;
  onStatus: (status: DoseStatus) => void;
  /** Opens the correction of its time, amount and note. */
  onEdit: () => void;
  onDelete: () => void;
}

/** One dose: when, what, how much, its status, and the switches to the other two statuses. */
export function HistoryEntryRow({
  entry,
  when,
  busy,
  onStatus,
  onEdit,
  onDelete,
  canEdit = true,
  givenBy = null,
  person = null,
}: HistoryEntryRowProps) {
  const { t } = useTranslation('meds');
  const { t: tc } = useTranslation('circle');
  const format = useMedsFormat();
  const others = DOSE_STATUSES.filter((status) => status !== entry.status);
  return (
    <li className="history-entry" data-testid="history-entry">
      <div className="history-main">
        <p className="history-name">
          {person && (
            <span className="person-tag" data-testid="history-person">
              {person}
            </span>
          )}
          <strong>{entry.medication_name}</strong>
          {entry.medication_id === null && (
            <span className="badge badge-neutral">{t('history.deletedMedication')}</span>
          )}
        </p>
        <p className="history-meta">
          <time dateTime={entry.taken}>{when}</time>
          <span aria-hidden="true"> · </span>
          <span>{format.amount(entry.quantity, entry.dosage_unit)}</span>
          {entry.dosage && (
            <>
              <span aria-hidden="true"> · </span>
              <span className="history-note" data-testid="history-note">
                {entry.dosage}
              </span>
            </>
          )}
          {givenBy && (
            <>
              <span aria-hidden="true"> · </span>
              <span className="given-by" data-testid="given-by">
                {tc('history.givenBy', { name: givenBy })}
              </span>
            </>
          )}
        </p>
      </div>
      <div className="history-status">
        <DoseStatusBadge status={entry.status} />
      </div>
      {canEdit && (
        <div className="history-actions">
          {others.map((status) => (
            <button
              key={status}
              type="button"
              className="button button-secondary button-small"
              disabled={busy}
              onClick={() => onStatus(status)}
              aria-label={t('history.entryAction', {
                action: t(`history.markAs.${status}`),
                name: entry.medication_name,
                when,
              })}
            >
              {t(`history.markAs.${status}`)}
            </button>
          ))}
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={busy}
            onClick={onEdit}
            aria-label={t('history.editLabel', { name: entry.medication_name, when })}
          >
            {t('history.edit')}
          </button>
          <button
            type="button"
            className="icon-button history-delete"
            disabled={busy}
            onClick={onDelete}
            aria-label={t('history.deleteLabel', { name: entry.medication_name, when })}
          >
            <TrashIcon />
          </button>
        </div>
      )}
    </li>
  );
}

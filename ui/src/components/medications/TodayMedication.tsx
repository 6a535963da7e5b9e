import { useId } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { DOSE_STATUSES, RECENT_DOSES, type DoseStatus, type Medication } from '../../api/medicationTypes';
import { DoseStatusBadge } from './Badges';
import { DeliveryWarning } from './DeliveryWarning';
import { MedicationAvatar } from './MedicationIcon';
import { NextDoseAllowed } from './NextDoseAllowed';
import { StockLine } from './StockLine';
import { useMedsFormat } from './useMedsFormat';

interface TodayMedicationProps {
  medication: Medication;
  /** The status whose button says "Logged!" right now. */
  loggedStatus: DoseStatus | null;
  onLog: (status: DoseStatus) => void;
  /** Something changed that only a reload shows (its reminder settings). */
  onStale?: () => void;
  /** Whether the viewer may log doses of it (a carer with the view role may not). */
  canLog?: boolean;
  /** Whose medication, when the screen shows more than one person's. */
  person?: string | null;
  /** Whether it is the viewer's own (reminder settings are). */
  own?: boolean;
}

const BUTTON_CLASS: Record<DoseStatus, string> = {
  taken: 'button button-primary',
  skipped: 'button button-secondary',
  missed: 'button button-secondary',
};

export function TodayMedication({
  medication: m,
  loggedStatus,
  onLog,
  onStale,
  canLog = true,
  person = null,
  own = true,
}: TodayMedicationProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const titleId = useId();
  const doses = m.doses.slice(0, RECENT_DOSES);

  return (
    <article className="card today-card" aria-labelledby={titleId} data-testid="today-medication">
      <div className="today-main">
        <header className="med-card-header">
          <MedicationAvatar icon={m.icon} color={m.color} />
          <div className="med-card-title">
            {person && (
              <p className="person-tag" data-testid="medication-person">
                {person}
              </p>
            )}
            <h2 id={titleId}>{m.name}</h2>
            <p className="med-dosage">
              {format.amount(m.default_quantity, m.unit)} · {format.schedule(m)}
            </p>
          </div>
        </header>
        <NextDoseAllowed at={m.next_dose_allowed_at} />
        <StockLine inventory={m.inventory} />
        {own && <DeliveryWarning medication={m} onSettingsClosed={onStale} />}
        {canLog && (
          <div className="today-actions" role="group" aria-label={t('today.logFor', { name: m.name })}>
            {DOSE_STATUSES.map((status) => (
              <button
                key={status}
                type="button"
                className={`${BUTTON_CLASS[status]}${loggedStatus === status ? ' is-logged' : ''}`}
                onClick={() => onLog(status)}
              >
                {loggedStatus === status ? t('today.loggedButton') : t(`today.actions.${status}`)}
              </button>
            ))}
          </div>
        )}
      </div>
      <section className="today-recent" aria-label={t('today.recent', { name: m.name })}>
        <h3>{t('today.recentTitle')}</h3>
        {doses.length === 0 ? (
          <p className="muted">{t('today.noDoses')}</p>
        ) : (
          <ul className="recent-doses" data-testid="recent-doses">
            {doses.map((dose) => (
              <li key={dose.id}>
                <DoseStatusBadge status={dose.status} />
                <span className="recent-amount">{format.amount(dose.quantity, dose.dosage_unit)}</span>
                <span className="recent-when">{format.dateTime(dose.taken)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </article>
  );
}

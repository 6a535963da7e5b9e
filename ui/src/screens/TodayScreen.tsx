import { lazy, Suspense, useState } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link } from 'react-router-dom';
import {
  DOSE_STATUSES,
  type DoseInput,
  type DoseStatus,
  type DoseWarning,
  type EntryResult,
  type Medication,
  type TodayDose,
} from '../api/medicationTypes';
import { ConfirmDialog } from '../components/medications/ConfirmDialog';
import { DoseDialog } from '../components/medications/DoseDialog';
import { DoseWarningNote } from '../components/medications/DoseWarningNote';
import { ScreenStatus } from '../components/medications/ScreenStatus';
import { TakeAnywayDialog } from '../components/medications/TakeAnywayDialog';
import { TodayMedication } from '../components/medications/TodayMedication';
import { TodaySchedule } from '../components/medications/TodaySchedule';
import { useMedicationList } from '../components/medications/useMedicationList';
import { useMedsFormat } from '../components/medications/useMedsFormat';
import { useTodayFeedback, type UndoOffer } from '../components/medications/useTodayFeedback';
import { loadNamespaces } from '../i18n';
import { limitRefusalOf, type LimitRefusal } from '../medications/doseLimits';
import { medsErrorText } from '../medications/errors';
import { needsOrdering } from '../medications/refill';
import { usePersonScope } from '../people/PersonScopeContext';
import { canLog } from '../people/roles';
import { usePeople } from '../people/usePeople';
import { useDeleteHistoryEntry } from '../queries/history';
import { useLogDose, useTodayScheduleQuery } from '../queries/medications';
import '../styles/medications.css';
import '../styles/people.css';

// What needs ordering is rare: the notice, its texts and its styles are fetched only when a
// medication on screen has a refill to order (Today's first load stays within its budget).
const RefillNotice = lazy(async () => {
  const [notice] = await Promise.all([import('../components/medications/RefillNotice'), loadNamespaces(['prescriptions'])]);
  return { default: notice.RefillNotice };
});

interface Logging {
  medication: Medication;
  status: DoseStatus;
}

/** Whether a medication has a dose of today still to log: its own Taken / Skip is there. */
function hasOpenDose(doses: readonly TodayDose[], medicationId: number): boolean {
  return doses.some((d) => d.medication_id === medicationId && (d.status === 'due' || d.status === 'upcoming'));
}

/** The latest of today's doses of a medication that is taken already, if any. */
function takenAlready(doses: readonly TodayDose[], medicationId: number): TodayDose | null {
  const taken = doses.filter((d) => d.medication_id === medicationId && d.status === 'taken');
  return taken.reduce<TodayDose | null>(
    (latest, d) => (latest === null || d.scheduled_time > latest.scheduled_time ? d : latest),
    null,
  );
}

/** SPEC §2 "Today screen": Taken, Skip and Missed per medication, and the recent doses. */
export function TodayScreen() {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const list = useMedicationList();
  const { scope } = usePersonScope();
  const { roleOf, tagOf } = usePeople();
  const feedback = useTodayFeedback();
  const logDose = useLogDose();
  const deleteEntry = useDeleteHistoryEntry();
  const todayDoses = useTodayScheduleQuery(scope).data?.doses ?? [];
  const [logging, setLogging] = useState<Logging | null>(null);
  // A taken dose asked for a medication whose dose of today is taken already.
  const [again, setAgain] = useState<{ medication: Medication; dose: TodayDose } | null>(null);
  const [undoFailure, setUndoFailure] = useState<string | null>(null);
  const [tooSoon, setTooSoon] = useState<{ medication: Medication; dose: DoseInput; refusal: LimitRefusal } | null>(
    null,
  );
  // A recorded dose the stock could not follow: stays until dismissed or the next log.
  const [warning, setWarning] = useState<{ name: string; warning: DoseWarning } | null>(null);
  const { medications } = list;

  const close = () => {
    feedback.clearError();
    setLogging(null);
  };

  const logged = (medication: Medication, dose: DoseInput, result: EntryResult) => {
    setWarning(result.warning && { name: medication.name, warning: result.warning });
    setUndoFailure(null);
    feedback.confirmLogged(`${medication.id}:${dose.status}`, t(`today.logged.${dose.status}`, { name: medication.name }), {
      entryId: result.entry.id,
      name: medication.name,
    });
  };

  // Deletes the entry the log wrote (the stock gets its amount back), as History's delete does.
  const undo = async (offer: UndoOffer) => {
    setUndoFailure(null);
    try {
      await deleteEntry.mutateAsync(offer.entryId);
      setWarning(null);
      feedback.showSuccess(t('today.undone', { name: offer.name }));
    } catch (error) {
      setUndoFailure(medsErrorText(t, error, 'today.undoFailed'));
    }
  };

  const startLog = (medication: Medication, status: DoseStatus) => {
    feedback.clearError();
    const taken = status === 'taken' ? takenAlready(todayDoses, medication.id) : null;
    if (taken) setAgain({ medication, dose: taken });
    else setLogging({ medication, status });
  };

  const submit = async (dose: DoseInput) => {
    if (!logging) return;
    const { medication } = logging;
    try {
      const result = await logDose.mutateAsync({ medicationId: medication.id, dose });
      setLogging(null);
      logged(medication, dose, result);
    } catch (error) {
      const refusal = limitRefusalOf(error);
      if (refusal) {
        // Too soon or over the day's maximum: the person decides (Take anyway / Cancel).
        setLogging(null);
        setTooSoon({ medication, dose, refusal });
        return;
      }
      feedback.failed(medsErrorText(t, error, 'errors.logDose'));
    }
  };

  const takeAnyway = async () => {
    if (!tooSoon) return;
    const { medication, dose } = tooSoon;
    try {
      const result = await logDose.mutateAsync({ medicationId: medication.id, dose: { ...dose, confirm: true } });
      setTooSoon(null);
      logged(medication, dose, result);
    } catch (error) {
      throw new Error(medsErrorText(t, error, 'errors.logDose'), { cause: error });
    }
  };

  return (
    <div className="screen">
      <header className="screen-header">
        <h1>{t('today.title')}</h1>
        <p className="screen-subtitle">{format.longDate(new Date())}</p>
      </header>

      {feedback.success && (
        <div className="form-success today-feedback" role="status" data-testid="today-feedback">
          <span>{feedback.success}</span>
          {feedback.undo && (
            <UndoButton offer={feedback.undo} busy={deleteEntry.isPending} onUndo={(offer) => void undo(offer)} />
          )}
        </div>
      )}
      {undoFailure && (
        <p className="form-error today-feedback" role="alert">
          {undoFailure}
        </p>
      )}

      {warning && (
        <DoseWarningNote warning={warning.warning} name={warning.name} onDismiss={() => setWarning(null)} />
      )}

      {medications?.some(needsOrdering) && (
        <Suspense fallback={null}>
          <RefillNotice
            medications={medications}
            canOrder={(medication) => canLog(roleOf(medication.person_id))}
            personOf={(medication) => (scope === null ? tagOf(medication.person_id) : null)}
            onOrdered={(confirmation) => {
              setUndoFailure(null);
              feedback.showSuccess(confirmation);
            }}
          />
        </Suspense>
      )}

      <TodaySchedule
        onLogged={(dose, result) => {
          feedback.clearError();
          setUndoFailure(null);
          setWarning(result.warning && { name: dose.name, warning: result.warning });
          feedback.showSuccess(t(`today.logged.${result.entry.status}`, { name: dose.name }), {
            entryId: result.entry.id,
            name: dose.name,
          });
        }}
      />

      <ScreenStatus loading={medications === null} error={list.error} onRetry={list.reload} />

      {medications?.length === 0 && (
        <div className="empty-state" data-testid="empty-state">
          <p className="empty-title">{t('today.empty')}</p>
          <Link to="/medications" className="button button-primary">
            {t('today.addMedications')}
          </Link>
        </div>
      )}

      {medications && medications.length > 0 && (
        <ul className="today-list">
          {medications.map((medication) => (
            <li key={medication.id}>
              <TodayMedication
                medication={medication}
                loggedStatus={
                  DOSE_STATUSES.find((status) => feedback.logged === `${medication.id}:${status}`) ?? null
                }
                onStale={list.reload}
                // A dose of today still open is logged at its time above: one control per dose.
                canLog={canLog(roleOf(medication.person_id)) && !hasOpenDose(todayDoses, medication.id)}
                own={roleOf(medication.person_id) === 'owner'}
                person={scope === null ? tagOf(medication.person_id) : null}
                onLog={(status) => startLog(medication, status)}
              />
            </li>
          ))}
        </ul>
      )}

      {logging && (
        <DoseDialog
          key={`${logging.medication.id}:${logging.status}`}
          medication={logging.medication}
          status={logging.status}
          error={feedback.error}
          onSubmit={submit}
          onClose={close}
        />
      )}

      {again && (
        <ConfirmDialog
          title={t('today.alreadyTakenTitle')}
          confirmLabel={t('today.logAnother')}
          busyLabel={t('dose.logging')}
          onConfirm={() => {
            setLogging({ medication: again.medication, status: 'taken' });
            setAgain(null);
            return Promise.resolve();
          }}
          onClose={() => setAgain(null)}
        >
          <p data-testid="already-taken-text">
            {t('today.alreadyTaken', {
              time:
                again.dose.logged_at === null ? format.timeOfDay(again.dose.local_time) : format.time(again.dose.logged_at),
            })}
          </p>
        </ConfirmDialog>
      )}

      {tooSoon && (
        <TakeAnywayDialog
          name={tooSoon.medication.name}
          refusal={tooSoon.refusal}
          onConfirm={takeAnyway}
          onClose={() => setTooSoon(null)}
        />
      )}
    </div>
  );
}

/** The confirmation's Undo: it names what it takes back. */
function UndoButton({ offer, busy, onUndo }: { offer: UndoOffer; busy: boolean; onUndo: (offer: UndoOffer) => void }) {
  const { t } = useTranslation('meds');
  return (
    <button
      type="button"
      className="button button-secondary button-small today-undo"
      disabled={busy}
      aria-label={t('today.undoLabel', { name: offer.name })}
      onClick={() => onUndo(offer)}
    >
      {t('today.undo')}
    </button>
  );
}

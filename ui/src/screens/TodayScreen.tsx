import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import {
  DOSE_STATUSES,
  type DoseInput,
  type DoseStatus,
  type DoseWarning,
  type EntryResult,
  type Medication,
} from '../api/medicationTypes';
import { DoseDialog } from '../components/medications/DoseDialog';
import { DoseWarningNote } from '../components/medications/DoseWarningNote';
import { ScreenStatus } from '../components/medications/ScreenStatus';
import { TakeAnywayDialog } from '../components/medications/TakeAnywayDialog';
import { TodayMedication } from '../components/medications/TodayMedication';
import { TodaySchedule } from '../components/medications/TodaySchedule';
import { useMedicationList } from '../components/medications/useMedicationList';
import { useMedsFormat } from '../components/medications/useMedsFormat';
import { useTodayFeedback } from '../components/medications/useTodayFeedback';
import { limitRefusalOf, type LimitRefusal } from '../medications/doseLimits';
import { medsErrorText } from '../medications/errors';
import { usePersonScope } from '../people/PersonScopeContext';
import { canLog } from '../people/roles';
import { usePeople } from '../people/usePeople';
import { useLogDose } from '../queries/medications';
import '../styles/medications.css';
import '../styles/people.css';

interface Logging {
  medication: Medication;
  status: DoseStatus;
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
  const [logging, setLogging] = useState<Logging | null>(null);
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
    feedback.confirmLogged(`${medication.id}:${dose.status}`, t(`today.logged.${dose.status}`, { name: medication.name }));
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
        <p className="form-success today-feedback" role="status">
          {feedback.success}
        </p>
      )}

      {warning && (
        <DoseWarningNote warning={warning.warning} name={warning.name} onDismiss={() => setWarning(null)} />
      )}

      <TodaySchedule
        onLogged={(dose, result) => {
          feedback.clearError();
          setWarning(result.warning && { name: dose.name, warning: result.warning });
          feedback.showSuccess(t(`today.logged.${result.entry.status}`, { name: dose.name }));
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
                canLog={canLog(roleOf(medication.person_id))}
                own={roleOf(medication.person_id) === 'owner'}
                person={scope === null ? tagOf(medication.person_id) : null}
                onLog={(status) => {
                  feedback.clearError();
                  setLogging({ medication, status });
                }}
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

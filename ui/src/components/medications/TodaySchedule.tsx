import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { getTodaySchedule, logDose } from '../../api/medications';
import type { EntryResult, TodayDose, TodayDoseStatus, TodaySchedule as Schedule } from '../../api/medicationTypes';
import { medsErrorText } from '../../medications/errors';
import { MedicationAvatar } from './MedicationIcon';
import { useMedsFormat } from './useMedsFormat';

const STATUS_CLASS: Record<TodayDoseStatus, string> = {
  upcoming: 'badge badge-neutral',
  due: 'badge badge-warning',
  taken: 'badge badge-on',
  skipped: 'badge badge-neutral',
  missed: 'badge badge-danger',
};

function keyOf(dose: TodayDose): string {
  return `${dose.medication_id}@${dose.scheduled_time}`;
}

interface TodayScheduleProps {
  /** Changes when the screen logged something elsewhere and the states may have moved. */
  generation: number;
  onLogged: (dose: TodayDose, result: EntryResult) => void;
}

/** Today's scheduled doses with their state, and one-tap Taken / Skip for the open ones. */
export function TodaySchedule({ generation, onLogged }: TodayScheduleProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const [schedule, setSchedule] = useState<Schedule | null>(null);
  const [hidden, setHidden] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<{ key: string; text: string } | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    getTodaySchedule(controller.signal)
      .then((loaded) => {
        setSchedule(loaded);
        setLoadError(null);
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        // A server without the schedule: the medication list below still works.
        if (error instanceof ApiError && error.status === 404) setHidden(true);
        else setLoadError(medsErrorText(t, error, 'todaySchedule.loadError'));
      });
    return () => controller.abort();
  }, [generation, t]);

  if (hidden) return null;

  const log = async (dose: TodayDose, status: 'taken' | 'skipped') => {
    const key = keyOf(dose);
    setBusy(key);
    setFailure(null);
    try {
      const result = await logDose(dose.medication_id, {
        status,
        quantity: dose.quantity,
        dosage_unit: dose.unit,
        ...(dose.reminder_id === null ? {} : { dosage_id: dose.reminder_id }),
      });
      setSchedule(
        (current) =>
          current && {
            ...current,
            doses: current.doses.map((d) =>
              keyOf(d) === key ? { ...d, status: result.entry.status, history_id: result.entry.id } : d,
            ),
          },
      );
      onLogged(dose, result);
    } catch (error) {
      setFailure({ key, text: medsErrorText(t, error, 'errors.logDose') });
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="card today-schedule" aria-labelledby="today-schedule-title" data-testid="today-schedule">
      <h2 id="today-schedule-title">{t('todaySchedule.title')}</h2>
      {loadError && (
        <p className="form-error" role="alert">
          {loadError}
        </p>
      )}
      {schedule && schedule.doses.length === 0 && <p className="muted">{t('todaySchedule.empty')}</p>}
      {schedule && schedule.doses.length > 0 && (
        <ul className="today-doses">
          {schedule.doses.map((dose) => {
            const key = keyOf(dose);
            const time = format.timeOfDay(dose.local_time);
            const open = dose.status === 'upcoming' || dose.status === 'due';
            return (
              <li key={key} className="today-dose" data-testid="today-dose">
                <span className="today-dose-time">{time}</span>
                <MedicationAvatar icon={dose.icon} color={dose.color} small />
                <span className="today-dose-what">
                  <strong>{dose.name}</strong> <span className="muted">{format.amount(dose.quantity, dose.unit)}</span>
                </span>
                <span className={STATUS_CLASS[dose.status]} data-testid="today-dose-status">
                  {t(`todaySchedule.status.${dose.status}`)}
                </span>
                {open && (
                  <span className="today-dose-actions">
                    <button
                      type="button"
                      className="button button-primary button-small"
                      disabled={busy !== null}
                      aria-label={t('todaySchedule.takeLabel', { name: dose.name, time })}
                      onClick={() => void log(dose, 'taken')}
                    >
                      {t('todaySchedule.take')}
                    </button>
                    <button
                      type="button"
                      className="button button-secondary button-small"
                      disabled={busy !== null}
                      aria-label={t('todaySchedule.skipLabel', { name: dose.name, time })}
                      onClick={() => void log(dose, 'skipped')}
                    >
                      {t('todaySchedule.skip')}
                    </button>
                  </span>
                )}
                {failure?.key === key && (
                  <p className="form-error today-dose-error" role="alert">
                    {failure.text}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

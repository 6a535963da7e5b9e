import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { ApiError } from '../../api/client';
import type { EntryResult, TodayDose, TodayDoseStatus, TodaySchedule as Schedule } from '../../api/medicationTypes';
import { medsErrorText } from '../../medications/errors';
import { usePersonScope } from '../../people/PersonScopeContext';
import { canLog } from '../../people/roles';
import { usePeople } from '../../people/usePeople';
import { queryKeys } from '../../queries/keys';
import { useLogDose, useTodayScheduleQuery } from '../../queries/medications';
import { DisabledReason, disabledBecause } from '../DisabledReason';
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
  onLogged: (dose: TodayDose, result: EntryResult) => void;
}

/**
 * Whether the doses need their person's name: not when every one of them is the account
 * holder's own.
 */
export function showsPersonNames(doses: readonly { person_id: number | null }[], selfId: number | null): boolean {
  return doses.some((dose) => dose.person_id !== null && dose.person_id !== selfId);
}

/**
 * Today's scheduled doses with their state, and one-tap Taken / Skip for the open ones of
 * people the viewer may log for; each with its person's name when not all are the viewer's own.
 */
export function TodaySchedule({ onLogged }: TodayScheduleProps) {
  const { t } = useTranslation('meds');
  const { t: tc } = useTranslation('circle');
  const format = useMedsFormat();
  const client = useQueryClient();
  const { scope } = usePersonScope();
  const { self, roleOf } = usePeople();
  const query = useTodayScheduleQuery(scope);
  const logDose = useLogDose();
  // The dose being logged: one at a time, and the others say why they wait.
  const [busy, setBusy] = useState<{ name: string; time: string } | null>(null);
  const [failure, setFailure] = useState<{ key: string; text: string } | null>(null);
  const schedule = query.data ?? null;
  const withNames = schedule !== null && showsPersonNames(schedule.doses, self?.id ?? null);

  // A server without the schedule: the medication list below still works.
  if (query.error instanceof ApiError && query.error.status === 404) return null;
  const loadError = query.error ? medsErrorText(t, query.error, 'todaySchedule.loadError') : null;

  const log = async (dose: TodayDose, status: 'taken' | 'skipped') => {
    const key = keyOf(dose);
    setBusy({ name: dose.name, time: format.timeOfDay(dose.local_time) });
    setFailure(null);
    try {
      const result = await logDose.mutateAsync({
        medicationId: dose.medication_id,
        dose: {
          status,
          quantity: dose.quantity,
          dosage_unit: dose.unit,
          // The dose the person tapped, and no other: by its reminder, or by its time.
          ...(dose.reminder_id === null
            ? { scheduled_time: dose.scheduled_time }
            : { dosage_id: dose.reminder_id }),
        },
      });
      // The dose's new state shows at once; the refetch the log set off confirms it.
      client.setQueryData<Schedule>(
        queryKeys.todayFor(scope),
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

  const waiting = busy ? t('todaySchedule.recording', busy) : null;
  const waitingReason = disabledBecause('today-schedule-waiting', waiting);

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
            const open = (dose.status === 'upcoming' || dose.status === 'due') && canLog(roleOf(dose.person_id));
            const person = withNames ? dose.person_name : null;
            return (
              <li key={key} className="today-dose" data-testid="today-dose">
                <span className="today-dose-time">{time}</span>
                <MedicationAvatar icon={dose.icon} color={dose.color} small />
                <span className="today-dose-what">
                  {person && (
                    <span className="person-tag" data-testid="today-dose-person">
                      {person}
                    </span>
                  )}
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
                      {...waitingReason}
                      aria-label={
                        person
                          ? tc('today.takeLabel', { name: dose.name, time, person })
                          : t('todaySchedule.takeLabel', { name: dose.name, time })
                      }
                      onClick={() => void log(dose, 'taken')}
                    >
                      {t('todaySchedule.take')}
                    </button>
                    <button
                      type="button"
                      className="button button-secondary button-small"
                      disabled={busy !== null}
                      {...waitingReason}
                      aria-label={
                        person
                          ? tc('today.skipLabel', { name: dose.name, time, person })
                          : t('todaySchedule.skipLabel', { name: dose.name, time })
                      }
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
      <DisabledReason id="today-schedule-waiting" reason={waiting} />
    </section>
  );
}

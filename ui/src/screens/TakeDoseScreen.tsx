import { useCallback, useEffect, useId, useState, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { ApiError } from '../api/client';
import { DOSE_STATUSES, type DoseStatus } from '../api/medicationTypes';
import { SNOOZE_MINUTES, type SnoozeMinutes, type TakeDetails, type TakeLogged, type TakeRecorded } from '../api/take';
import { useAuth } from '../auth/AuthContext';
import { CloseIcon } from '../components/icons';
import { DoseWarningNote } from '../components/medications/DoseWarningNote';
import { FormError } from '../components/medications/FormError';
import { useMedsFormat } from '../components/medications/useMedsFormat';
import { notifyErrorText } from '../notifications/notifyErrors';
import { useLogTakeDose, useSnoozeTake, useTakeDetailsQuery } from '../queries/take';
import i18n from '../i18n';
import type { Language } from '../settings/appSettings';
import '../styles/notifications.css';
import { PublicFrame } from './PublicFrame';

/**
 * What a reminder's link asked for: Gotify's message links the take page with
 * `?action=snooze` or `?action=skip`. The page only preselects it; a person still confirms.
 */
type SuggestedAction = 'snooze' | 'skip' | null;

function suggestedAction(value: string | null): SuggestedAction {
  return value === 'snooze' || value === 'skip' ? value : null;
}

type Load =
  | { kind: 'loading' }
  | { kind: 'invalid' }
  | { kind: 'failed'; text: string }
  | { kind: 'ready'; details: TakeDetails };

/** The page's state: the details, or the failure (not while asking again), else loading. */
function loadOf(details: TakeDetails | undefined, error: Error | null, failure: (error: Error) => Load): Load {
  if (details) return { kind: 'ready', details };
  return error ? failure(error) : { kind: 'loading' };
}

/**
 * A browser without a session (a phone opening the link from a reminder) reads the page in
 * the reminder's language; a signed-in one keeps the person's own settings. Not saved: the
 * app's own language setting stays as it was.
 */
function useReminderLanguage(language: Language | null | undefined) {
  const { token } = useAuth();
  const signedOut = token === null;
  useEffect(() => {
    if (!signedOut || !language || i18n.language === language) return;
    document.documentElement.lang = language;
    void i18n.changeLanguage(language);
  }, [signedOut, language]);
  return signedOut;
}

/**
 * SPEC §2 "Quick dosage logging": the page a reminder's link opens, without signing in.
 * It ends on what was recorded and stays there; leaving closes the window when another
 * window opened it, otherwise goes to /today (offered only to a signed-in browser, as
 * /today would ask a signed-out one to sign in).
 */
export function TakeDoseScreen() {
  const { t } = useTranslation('notify');
  const navigate = useNavigate();
  const { token = '' } = useParams();
  const [searchParams] = useSearchParams();
  const suggested = suggestedAction(searchParams.get('action'));
  const query = useTakeDetailsQuery(token);
  const signedOut = useReminderLanguage(query.data?.language);
  const load = loadOf(query.data, query.isFetching ? null : query.error, (error) =>
    error instanceof ApiError && error.status === 404
      ? { kind: 'invalid' }
      : { kind: 'failed', text: notifyErrorText(t, error, 'errors.loadDetails') },
  );

  const leave = useCallback(() => {
    if (window.opener) window.close();
    else void navigate('/today');
  }, [navigate]);

  const goHome = () => void navigate('/');

  if (load.kind === 'loading') {
    return (
      <PublicFrame>
        <div className="checking" role="status">
          <span className="spinner" aria-hidden="true" />
          <span>{t('take.loading')}</span>
        </div>
      </PublicFrame>
    );
  }

  if (load.kind === 'invalid') {
    return (
      <PublicFrame>
        <div className="result-icon result-error" aria-hidden="true">
          <CloseIcon width={28} height={28} />
        </div>
        <h1>{t('take.invalidTitle')}</h1>
        <p className="public-subtitle">{t('take.invalidText')}</p>
        <div className="stack-actions">
          <button type="button" className="button button-primary button-block" onClick={goHome}>
            {t('take.goHome')}
          </button>
        </div>
      </PublicFrame>
    );
  }

  if (load.kind === 'failed') {
    return (
      <PublicFrame>
        <p className="form-error" role="alert">
          {load.text}
        </p>
        <div className="stack-actions">
          <button
            type="button"
            className="button button-primary button-block"
            onClick={() => void query.refetch()}
          >
            {t('take.retry')}
          </button>
          <button type="button" className="button button-secondary button-block" onClick={goHome}>
            {t('take.goHome')}
          </button>
        </div>
      </PublicFrame>
    );
  }

  return (
    <PublicFrame>
      <ReminderSummary details={load.details} />
      {load.details.logged ? (
        <AlreadyLogged details={load.details} logged={load.details.logged} onLeave={leave} />
      ) : (
        <TakeForm
          token={token}
          details={load.details}
          snoozedUntil={load.details.snoozed_until}
          suggested={suggested}
          onLeave={leave}
          canLeave={!signedOut || Boolean(window.opener)}
        />
      )}
    </PublicFrame>
  );
}

/** SPEC §2: the quantity and dosage unit, else the dosage and its unit, else "As prescribed". */
export function dosageText(
  details: Pick<TakeDetails, 'dosage' | 'dosage_unit'> & { quantity: number | null },
  amount: (quantity: number, unit: string) => string,
  asPrescribed: string,
): string {
  if (details.quantity !== null && details.dosage_unit) return amount(details.quantity, details.dosage_unit);
  if (details.dosage) return [details.dosage, details.dosage_unit].filter(Boolean).join(' ');
  return asPrescribed;
}

function ReminderSummary({ details }: { details: TakeDetails }) {
  const { t } = useTranslation('notify');
  const { t: tc } = useTranslation('circle');
  const format = useMedsFormat();
  const dosage = dosageText(details, format.amount, t('take.asPrescribed'));
  return (
    <>
      <h1>{details.medication_name ? t('take.heading', { name: details.medication_name }) : details.title}</h1>
      <dl className="take-details" data-testid="take-details">
        {details.person_name && (
          <div>
            <dt>{tc('take.person')}</dt>
            <dd data-testid="take-person">{details.person_name}</dd>
          </div>
        )}
        <div>
          <dt>{t('take.medication')}</dt>
          <dd data-testid="take-medication">{details.medication_name}</dd>
        </div>
        <div>
          <dt>{t('take.dosage')}</dt>
          <dd data-testid="take-dosage">{dosage}</dd>
        </div>
        <div>
          <dt>{t('take.scheduledTime')}</dt>
          <dd data-testid="take-scheduled-time">{format.dateTime(details.scheduled_time)}</dd>
        </div>
      </dl>
      {details.message && (
        <p className="take-message" data-testid="take-message">
          {details.message}
        </p>
      )}
    </>
  );
}

/** The one way out once the dose is settled. */
function CloseAction({ onLeave }: { onLeave: () => void }) {
  const { t } = useTranslation('notify');
  return (
    <div className="stack-actions">
      <button type="button" className="button button-secondary button-block" onClick={onLeave}>
        {t('take.close')}
      </button>
    </div>
  );
}

interface AlreadyLoggedProps {
  details: TakeDetails;
  logged: TakeLogged;
  onLeave: () => void;
}

/** Logged already: by whom and when, when the server says (every carer's link shows it). */
function AlreadyLogged({ details, logged, onLeave }: AlreadyLoggedProps) {
  const { t } = useTranslation('notify');
  const { t: tc } = useTranslation('circle');
  const format = useMedsFormat();
  const { handled_by: by, handled_at: at } = details;
  const handled = by !== null && (logged.status === 'taken' || logged.status === 'skipped');
  return (
    <>
      <p className="form-success take-result" role="status" data-testid="take-already-logged">
        {handled
          ? tc(`take.handled.${logged.status ?? 'taken'}`, { name: by, time: format.dateTime(at ?? logged.taken) })
          : t(`take.logged.${logged.status ?? 'unknown'}`, { time: format.dateTime(logged.taken) })}
      </p>
      <CloseAction onLeave={onLeave} />
    </>
  );
}

interface TakeFormProps {
  token: string;
  details: TakeDetails;
  /** Snoozed already (here or from a notification): when the reminder comes again. */
  snoozedUntil: string | null;
  /** The choice the link asked for, preselected and focused. */
  suggested: SuggestedAction;
  onLeave: () => void;
  /** Whether leaving has somewhere to go once the dose is recorded. */
  canLeave: boolean;
}

/** "Aspirin (1 tablet) recorded as taken for Anna at 11/26/2026 8:05 AM." */
function RecordedLine({ details, recorded }: { details: TakeDetails; recorded: TakeRecorded }) {
  const { t } = useTranslation('notify');
  const format = useMedsFormat();
  const dosage = dosageText(details, format.amount, t('take.asPrescribed'));
  const what = `${details.medication_name} (${dosage})`;
  const time = format.dateTime(recorded.taken);
  return (
    <p className="take-recorded" data-testid="take-recorded">
      {details.person_name
        ? t(`take.recorded.${recorded.status}`, { what, person: details.person_name, time })
        : t(`take.recordedOwn.${recorded.status}`, { what, time })}
    </p>
  );
}

function TakeForm({ token, details, snoozedUntil: snoozedBefore, suggested, onLeave, canLeave }: TakeFormProps) {
  const { t } = useTranslation('notify');
  const format = useMedsFormat();
  const formId = useId();
  const { mutateAsync: snooze } = useSnoozeTake(token);
  const [snoozedUntil, setSnoozedUntil] = useState(snoozedBefore);
  const [status, setStatus] = useState<DoseStatus>(suggested === 'skip' ? 'skipped' : 'taken');
  const { mutateAsync: logTakeDose } = useLogTakeDose(token);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Logged elsewhere meanwhile (409): nothing left to log here.
  const [conflict, setConflict] = useState(false);
  // What was recorded: the page stays on it (a phone's browser has nowhere better to go).
  const [done, setDone] = useState<TakeRecorded | null>(null);

  const remindLater = async (minutes: SnoozeMinutes) => {
    setBusy(true);
    setError(null);
    try {
      setSnoozedUntil(await snooze(minutes));
    } catch (caught) {
      setConflict(caught instanceof ApiError && caught.status === 409);
      setError(notifyErrorText(t, caught, 'errors.snooze'));
    } finally {
      setBusy(false);
    }
  };

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setDone(await logTakeDose(status));
    } catch (caught) {
      setConflict(caught instanceof ApiError && caught.status === 409);
      setError(notifyErrorText(t, caught, 'errors.logDose'));
    } finally {
      setBusy(false);
    }
  };

  if (done) {
    return (
      <>
        <div className="form-success take-result" role="status">
          <p data-testid="take-success">{t(`take.success.${done.status}`)}</p>
          <RecordedLine details={details} recorded={done} />
        </div>
        {done.warning && <DoseWarningNote warning={done.warning} />}
        {canLeave && <CloseAction onLeave={onLeave} />}
      </>
    );
  }

  return (
    <form id={formId} className="form take-form" noValidate onSubmit={(event) => void submit(event)}>
      <FormError text={error} />
      {snoozedUntil && (
        <p className="form-success take-result" role="status" data-testid="take-snoozed">
          {t('take.snoozedUntil', { time: format.time(snoozedUntil) })}
        </p>
      )}
      {!conflict && (
        <fieldset className="choice-group" disabled={busy}>
          <legend>{t('take.statusLegend')}</legend>
          {DOSE_STATUSES.map((value) => (
            <label key={value} className="choice">
              <input
                type="radio"
                name={`${formId}-status`}
                value={value}
                checked={status === value}
                onChange={() => setStatus(value)}
              />
              <span>{t(`take.status.${value}`)}</span>
            </label>
          ))}
        </fieldset>
      )}
      <div className="stack-actions">
        {!conflict && (
          <button
            type="submit"
            className="button button-primary button-block"
            disabled={busy}
            autoFocus={suggested === 'skip'}
          >
            {busy ? t('take.logging') : t(`take.submit.${status}`)}
          </button>
        )}
        <button type="button" className="button button-secondary button-block" onClick={onLeave} disabled={busy}>
          {conflict || snoozedUntil ? t('take.close') : t('take.cancel')}
        </button>
      </div>
      {!conflict && (
        <div className="take-snooze" role="group" aria-labelledby={`${formId}-snooze`}>
          <p id={`${formId}-snooze`} className="take-snooze-title">
            {t('take.snoozeTitle')}
          </p>
          <div className="take-snooze-buttons">
            {SNOOZE_MINUTES.map((minutes) => (
              <button
                key={minutes}
                type="button"
                // The notification's button said "Snooze 10 min": the shortest is the one asked for.
                className={suggested === 'snooze' && minutes === SNOOZE_MINUTES[0] ? 'button button-primary' : 'button button-secondary'}
                autoFocus={suggested === 'snooze' && minutes === SNOOZE_MINUTES[0]}
                disabled={busy}
                onClick={() => void remindLater(minutes)}
              >
                {t('take.snoozeMinutes', { count: minutes })}
              </button>
            ))}
          </div>
        </div>
      )}
    </form>
  );
}

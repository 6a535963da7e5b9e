import { useState, type ReactNode, type SubmitEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, useSearchParams } from 'react-router-dom';
import type { OverLimitDose, Report, ReportMedication } from '../api/data';
import { useAuth } from '../auth/AuthContext';
import { DisabledReason, disabledBecause } from '../components/DisabledReason';
import { StockBadge } from '../components/medications/Badges';
import { useMedsFormat } from '../components/medications/useMedsFormat';
import { dateInputValue, formatPercent } from '../medications/format';
import { useReportQuery } from '../queries/history';
import { failureReason } from './settings/data/failureReason';
import '../styles/medications.css';
import '../styles/data.css';

const PRESETS = [30, 90, 365] as const;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

interface Range {
  from: string;
  to: string;
}

/** The period the address asks for: `?from=&to=`, else `?days=` (30 by default). */
function periodOf(params: URLSearchParams): { choice: string; range: Range } {
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  if (DATE.test(from) && DATE.test(to)) return { choice: 'custom', range: { from, to } };
  const days = PRESETS.find((preset) => String(preset) === params.get('days')) ?? 30;
  // The last `days` days, today included, by this browser's calendar.
  const start = new Date();
  start.setDate(start.getDate() - (days - 1));
  return { choice: String(days), range: { from: dateInputValue(start), to: dateInputValue(new Date()) } };
}

/** The doctor report (issue 11 §1): made to be printed, so no buttons reach the paper. */
export function ReportScreen() {
  const { t } = useTranslation('data');
  const { user } = useAuth();
  const format = useMedsFormat();
  const [params, setParams] = useSearchParams();
  const { choice, range } = periodOf(params);
  const [custom, setCustom] = useState<Range | null>(null);
  const [rangeError, setRangeError] = useState<string | null>(null);
  // What the server answered, for the period it was asked about.
  const query = useReportQuery(range);
  const report = query.data ?? null;
  const error = rangeError ?? (query.error ? (failureReason(query.error) ?? t('report.loadFailed')) : null);

  const choose = (value: string) => {
    setRangeError(null);
    if (value === 'custom') {
      setCustom(range);
      return;
    }
    setCustom(null);
    setParams({ days: value }, { replace: true });
  };

  const showCustom = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!custom) return;
    if (!DATE.test(custom.from) || !DATE.test(custom.to) || custom.from > custom.to) {
      setRangeError(t('report.badRange'));
      return;
    }
    setRangeError(null);
    setParams({ from: custom.from, to: custom.to }, { replace: true });
  };

  const person = [user?.firstName, user?.lastName].filter(Boolean).join(' ');
  // Print is for the report on the page: none yet, or none coming.
  const printBlocked = report ? null : error ? t('report.printNothing') : t('report.printWaits');

  return (
    <div className="screen report">
      <header className="screen-header">
        <h1>{t('report.title')}</h1>
      </header>

      <form className="card report-controls no-print" noValidate onSubmit={showCustom}>
        <div className="field">
          <label htmlFor="report-period">{t('report.periodLabel')}</label>
          <select id="report-period" value={custom ? 'custom' : choice} onChange={(e) => choose(e.target.value)}>
            {PRESETS.map((days) => (
              <option key={days} value={days}>
                {t(`report.periods.${days}`)}
              </option>
            ))}
            <option value="custom">{t('report.periods.custom')}</option>
          </select>
        </div>
        {custom && (
          <>
            <div className="field">
              <label htmlFor="report-from">{t('report.from')}</label>
              <input
                id="report-from"
                type="date"
                value={custom.from}
                onChange={(e) => setCustom({ ...custom, from: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor="report-to">{t('report.to')}</label>
              <input
                id="report-to"
                type="date"
                value={custom.to}
                onChange={(e) => setCustom({ ...custom, to: e.target.value })}
              />
            </div>
            <button type="submit" className="button button-secondary">
              {t('report.show')}
            </button>
          </>
        )}
        <div className="button-row">
          <button
            type="button"
            className="button button-primary"
            onClick={() => window.print()}
            disabled={!report}
            {...disabledBecause('report-print-blocked', printBlocked)}
          >
            {t('report.print')}
          </button>
          <Link className="button button-quiet" to="/settings?section=data">
            {t('report.back')}
          </Link>
        </div>
        <DisabledReason id="report-print-blocked" reason={printBlocked} />
      </form>

      {error && (
        <p className="form-error no-print" role="alert">
          {error}
        </p>
      )}
      {!report && !error && (
        <p className="muted" role="status">
          {t('common.loading')}
        </p>
      )}

      {report && (
        <>
          <dl className="report-facts" data-testid="report-facts">
            <div>
              <dt>{t('report.person')}</dt>
              <dd>{person ? `${person} <${user?.email ?? ''}>` : user?.email}</dd>
            </div>
            <div>
              <dt>{t('report.period')}</dt>
              <dd data-testid="report-period">
                {t('report.range', { from: format.plainDate(report.from), to: format.plainDate(report.to) })}
              </dd>
            </div>
            <div>
              <dt>{t('report.generated')}</dt>
              <dd>{format.dateTime(report.generated_at)}</dd>
            </div>
            <div>
              <dt>{t('report.timezone')}</dt>
              <dd>{report.timezone}</dd>
            </div>
          </dl>
          <MedicationTable report={report} />
          <PrescriptionTable report={report} />
          <MissedList report={report} />
          <OverLimitList report={report} />
        </>
      )}
    </div>
  );
}

/** A titled report table, or the sentence saying it has no rows. */
function ReportSection({
  id,
  title,
  empty,
  children,
}: {
  id: string;
  title: string;
  empty: string | null;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={`report-${id}-title`}>
      <h2 id={`report-${id}-title`}>{title}</h2>
      {empty !== null ? (
        <p className="muted">{empty}</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table" data-testid={`report-${id}`}>
            {children}
          </table>
        </div>
      )}
    </section>
  );
}

function MedicationTable({ report }: { report: Report }) {
  const { t } = useTranslation('data');
  const format = useMedsFormat();
  const rate = (value: number | null) => (value === null ? t('report.noRate') : formatPercent(value, format.language));

  return (
    <ReportSection
      id="medications"
      title={t('report.medications')}
      empty={report.medications.length === 0 ? t('report.noMedications') : null}
    >
      <thead>
        <tr>
          <th scope="col">{t('report.columns.medication')}</th>
          <th scope="col">{t('report.columns.schedule')}</th>
          <th scope="col">{t('report.columns.dose')}</th>
          <th scope="col">{t('report.columns.stock')}</th>
          <th scope="col" className="numeric">
            {t('report.columns.taken')}
          </th>
          <th scope="col" className="numeric">
            {t('report.columns.skipped')}
          </th>
          <th scope="col" className="numeric">
            {t('report.columns.missed')}
          </th>
          <th scope="col" className="numeric">
            {t('report.columns.rate')}
          </th>
        </tr>
      </thead>
      <tbody>
        {report.medications.map((m) => (
          <tr key={m.id}>
            <th scope="row">
              <span className="report-name">
                <span className={`dot med-color-${m.color}`} aria-hidden="true" />
                {m.name}
              </span>
            </th>
            <td>
              <ul className="report-schedule" data-testid="report-schedule">
                {format.scheduleLines(m, m).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </td>
            <td className="nowrap">
              {m.stages.length > 0 ? t('report.doseByStage') : format.amount(m.default_quantity, m.unit)}
            </td>
            <td>
              <StockCell medication={m} />
            </td>
            {m.adherence ? (
              <>
                <td className="numeric">{m.adherence.taken}</td>
                <td className="numeric">{m.adherence.skipped}</td>
                <td className="numeric">{m.adherence.missed}</td>
                <td className="numeric">{rate(m.adherence.rate)}</td>
              </>
            ) : (
              <td colSpan={4}>
                <UsageCell medication={m} />
              </td>
            )}
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row" colSpan={4}>
            {t('report.totals')}
          </th>
          <td className="numeric">{report.totals.taken}</td>
          <td className="numeric">{report.totals.skipped}</td>
          <td className="numeric">{report.totals.missed}</td>
          <td className="numeric" data-testid="report-total-rate">
            {rate(report.totals.rate)}
          </td>
        </tr>
      </tfoot>
    </ReportSection>
  );
}

/** The prescriptions: who prescribed each, the pharmacy, its dates and refills, what to order. */
function PrescriptionTable({ report }: { report: Report }) {
  const { t } = useTranslation('data');
  const format = useMedsFormat();
  const prescribed = report.medications.filter((m) => m.prescription !== null);
  if (prescribed.length === 0) return null;
  const day = (date: string | null | undefined) => (date ? format.plainDate(date) : '–');
  return (
    <ReportSection id="prescriptions" title={t('report.prescriptions.title')} empty={null}>
      <thead>
        <tr>
          <th scope="col">{t('report.columns.medication')}</th>
          <th scope="col">{t('report.prescriptions.prescriber')}</th>
          <th scope="col">{t('report.prescriptions.pharmacy')}</th>
          <th scope="col">{t('report.prescriptions.prescribedOn')}</th>
          <th scope="col">{t('report.prescriptions.expiresOn')}</th>
          <th scope="col" className="numeric">
            {t('report.prescriptions.refillsLeft')}
          </th>
          <th scope="col">{t('report.prescriptions.toOrder')}</th>
        </tr>
      </thead>
      <tbody>
        {prescribed.map((m) => {
          const p = m.prescription;
          if (!p) return null;
          const need = p.refill;
          return (
            <tr key={m.id}>
              <th scope="row">{m.name}</th>
              <td>{p.prescriber || '–'}</td>
              <td>{[p.pharmacy_name, p.pharmacy_phone].filter((x) => x !== '').join(' · ') || '–'}</td>
              <td className="nowrap">{day(p.prescribed_on)}</td>
              <td className="nowrap">{day(p.expires_on)}</td>
              <td className="numeric">{p.refills_left ?? '–'}</td>
              <td>
                {need
                  ? t(need.new_prescription_needed ? 'report.prescriptions.newBy' : 'report.prescriptions.refillBy', {
                      date: format.plainDate(need.order_by),
                    })
                  : '–'}
              </td>
            </tr>
          );
        })}
      </tbody>
    </ReportSection>
  );
}

/** An as-needed medication's use in place of adherence: it has no doses to keep to. */
function UsageCell({ medication }: { medication: ReportMedication }) {
  const { t } = useTranslation('data');
  const format = useMedsFormat();
  const usage = medication.usage;
  return (
    <>
      <span className="report-line">{t('report.notCounted')}</span>
      {usage && (
        <span className="report-line" data-testid="report-usage">
          {t('report.usage', { count: usage.taken, days: t('report.usageDays', { count: usage.days }) })}
          {' · '}
          {t('report.perDay', { perDay: format.number(usage.per_day) })}
        </span>
      )}
      {medication.over_limit.length > 0 && (
        <span className="report-line report-over-limit">
          {t('report.overLimit', { count: medication.over_limit.length })}
        </span>
      )}
    </>
  );
}

function StockCell({ medication }: { medication: ReportMedication }) {
  const { t } = useTranslation('data');
  const format = useMedsFormat();
  const stock = medication.inventory;
  if (!stock) return <span className="muted">{t('report.notTracked')}</span>;
  return (
    <>
      {format.amount(stock.current_quantity, stock.total_unit)} <StockBadge status={stock.stock_status} />
      {stock.runs_out_on && (
        <span className="report-stock-note">
          {t('report.runsOut', { date: format.plainDate(stock.runs_out_on) })}
        </span>
      )}
    </>
  );
}

function MissedList({ report }: { report: Report }) {
  const { t } = useTranslation('data');
  const format = useMedsFormat();
  return (
    <ReportSection
      id="missed"
      title={t('report.missedTitle')}
      empty={report.missed.length === 0 ? t('report.noMissed') : null}
    >
      <thead>
        <tr>
          <th scope="col">{t('report.missedColumns.time')}</th>
          <th scope="col">{t('report.missedColumns.medication')}</th>
          <th scope="col">{t('report.missedColumns.source')}</th>
        </tr>
      </thead>
      <tbody>
        {report.missed.map((dose, index) => (
          <tr key={`${dose.time}-${dose.medication_name}-${index}`}>
            <td>{format.dateTime(dose.time)}</td>
            <td>{dose.medication_name}</td>
            <td>{t(`report.sources.${dose.source}`)}</td>
          </tr>
        ))}
      </tbody>
    </ReportSection>
  );
}

/** Doses an as-needed medication's limits would have held back, taken anyway. */
function OverLimitList({ report }: { report: Report }) {
  const { t } = useTranslation('data');
  const format = useMedsFormat();
  const asNeeded = report.medications.filter((m) => m.usage !== null);
  if (asNeeded.length === 0) return null;
  const doses = asNeeded
    .flatMap((m) => m.over_limit.map((dose) => ({ ...dose, medication: m })))
    .sort((a, b) => a.time.localeCompare(b.time));
  const limitText = (limit: OverLimitDose['limit'], m: ReportMedication) =>
    limit === 'min_gap'
      ? t('report.limits.min_gap', { gap: format.gap(m.schedule.min_gap_minutes ?? 0) })
      : t('report.limits.max_per_day', { max: m.schedule.max_per_day ?? 0 });
  return (
    <ReportSection
      id="over-limit"
      title={t('report.overLimitTitle')}
      empty={doses.length === 0 ? t('report.noOverLimit') : null}
    >
      <thead>
        <tr>
          <th scope="col">{t('report.overLimitColumns.time')}</th>
          <th scope="col">{t('report.overLimitColumns.medication')}</th>
          <th scope="col">{t('report.overLimitColumns.limit')}</th>
        </tr>
      </thead>
      <tbody>
        {doses.map((dose) => (
          <tr key={`${dose.medication.id}-${dose.time}`}>
            <td>{format.dateTime(dose.time)}</td>
            <td>{dose.medication.name}</td>
            <td>{limitText(dose.limit, dose.medication)}</td>
          </tr>
        ))}
      </tbody>
    </ReportSection>
  );
}

import { useId } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Adherence, DailyTally, MedicationAdherence, Tally } from '../../api/medicationTypes';
import { CHART_HEIGHT, CHART_STATUSES as STATUSES, barSegments } from '../../medications/chart';
import { formatPercent } from '../../medications/format';
import { useMedsFormat } from './useMedsFormat';

const BAR_WIDTH = 7;
const BAR_GAP = 3;

function sum(days: DailyTally[], status: (typeof STATUSES)[number]): number {
  return days.reduce((total, day) => total + day[status], 0);
}

/** 30 days of doses as stacked bars, drawn with plain SVG. */
export function AdherenceChart({ daily }: { daily: DailyTally[] }) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const titleId = useId();
  const descId = useId();
  const busiest = Math.max(0, ...daily.map((d) => d.taken + d.skipped + d.missed));
  const width = daily.length * (BAR_WIDTH + BAR_GAP) - BAR_GAP;
  const first = daily[0];
  const last = daily[daily.length - 1];

  return (
    <figure className="adherence-chart">
      <svg
        viewBox={`0 0 ${Math.max(width, 1)} ${CHART_HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-labelledby={`${titleId} ${descId}`}
        data-testid="adherence-chart"
      >
        <title id={titleId}>{t('adherence.chartTitle')}</title>
        <desc id={descId}>
          {t('adherence.chartDesc', {
            taken: sum(daily, 'taken'),
            skipped: sum(daily, 'skipped'),
            missed: sum(daily, 'missed'),
          })}
        </desc>
        <line className="chart-baseline" x1={0} x2={width} y1={CHART_HEIGHT - 0.5} y2={CHART_HEIGHT - 0.5} />
        {daily.map((day, index) => (
          <g key={day.date} transform={`translate(${index * (BAR_WIDTH + BAR_GAP)} 0)`}>
            <title>
              {t('adherence.dayTitle', {
                date: format.plainDate(day.date),
                taken: day.taken,
                skipped: day.skipped,
                missed: day.missed,
              })}
            </title>
            <rect className="chart-slot" x={0} y={0} width={BAR_WIDTH} height={CHART_HEIGHT} />
            {barSegments(day, busiest).map((segment) => (
              <rect
                key={segment.status}
                className={`chart-${segment.status}`}
                x={0}
                y={segment.y}
                width={BAR_WIDTH}
                height={segment.height}
              />
            ))}
          </g>
        ))}
      </svg>
      <figcaption className="chart-caption">
        <span className="chart-range">
          {first && format.plainDate(first.date)}
          <span aria-hidden="true"> – </span>
          {last && format.plainDate(last.date)}
        </span>
        <span className="chart-legend">
          {STATUSES.map((status) => (
            <span key={status} className="legend-item">
              <span className={`legend-swatch chart-${status}`} aria-hidden="true" />
              {t(`status.${status}`)}
            </span>
          ))}
        </span>
      </figcaption>
    </figure>
  );
}

function Rate({ tally }: { tally: Tally }) {
  const { i18n } = useTranslation('meds');
  return <>{tally.rate === null ? '—' : formatPercent(tally.rate, i18n.language)}</>;
}

/**
 * Adherence at a glance (DESIGN §7): taken ÷ logged per medication, 7 and 30 days. `personOf`
 * names whose medication a row is, when the summary holds several people's.
 */
export function AdherenceSummary({
  adherence,
  personOf = () => null,
}: {
  adherence: Adherence;
  personOf?: (medication: MedicationAdherence) => string | null;
}) {
  const { t } = useTranslation('meds');
  const titleId = useId();
  const logged = adherence.daily.reduce((total, day) => total + day.taken + day.skipped + day.missed, 0);
  if (adherence.medications.length === 0 && logged === 0) return null;
  return (
    <section className="card adherence" aria-labelledby={titleId} data-testid="adherence">
      <div className="adherence-head">
        <h2 id={titleId}>{t('adherence.title')}</h2>
        <p className="field-hint">{t('adherence.hint')}</p>
      </div>
      {adherence.medications.length > 0 && (
        <table className="adherence-table">
          <thead>
            <tr>
              <th scope="col">{t('adherence.medication')}</th>
              <th scope="col">{t('adherence.last7')}</th>
              <th scope="col">{t('adherence.last30')}</th>
            </tr>
          </thead>
          <tbody>
            {adherence.medications.map((m) => (
              <tr key={m.medication_id}>
                <th scope="row">
                  <span className="adherence-name">
                    <span className={`dot med-color-${m.color}`} aria-hidden="true" />
                    {personOf(m) && (
                      <span className="person-tag" data-testid="adherence-person">
                        {personOf(m)}
                      </span>
                    )}
                    {m.name}
                  </span>
                </th>
                <td>
                  <Rate tally={m.last7} />
                </td>
                <td>
                  <Rate tally={m.last30} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {logged > 0 ? <AdherenceChart daily={adherence.daily} /> : <p className="muted">{t('adherence.nothing')}</p>}
    </section>
  );
}

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { disabledState } from '../test/disabledReason';
import { deferred, requestUrl } from '../test/fetchMock';
import { fail, medsServer, ok, requestsTo, SCHEDULE_JSON, signInForMeds, USER } from '../test/medications';
import { renderApp } from '../test/renderApp';

afterEach(() => {
  vi.useRealTimers();
});

/** A schedule as the server sends it: everything unset but what is given. */
function scheduleJson(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...SCHEDULE_JSON, start_date: '2026-10-01', effective_times: ['08:00'], ...changes };
}

const REPORT = {
  from: '2026-10-25',
  to: '2026-11-23',
  generated_at: '2026-11-23T10:15:00Z',
  timezone: 'Europe/Paris',
  totals: { taken: 24, skipped: 2, missed: 4, rate: 0.8 },
  medications: [
    {
      id: 3,
      name: 'Lisinopril',
      unit: 'mg',
      frequency: 'daily',
      default_quantity: 10,
      color: 'blue',
      schedule: scheduleJson({ times: ['08:00'] }),
      stages: [],
      last_day: null,
      inventory: { current_quantity: 6, total_unit: 'tablets', stock_status: 'low', runs_out_on: '2026-11-29' },
      adherence: { taken: 24, skipped: 2, missed: 4, rate: 0.8 },
      usage: null,
      over_limit: [],
    },
    {
      id: 4,
      name: 'Vitamin D',
      unit: 'drops',
      frequency: 'weekly',
      default_quantity: 2,
      color: 'green',
      schedule: scheduleJson({ times: ['20:00'], weekdays: [1, 4], effective_times: ['20:00'], effective_weekdays: [1, 4] }),
      stages: [],
      last_day: null,
      inventory: null,
      adherence: { taken: 0, skipped: 0, missed: 0, rate: null },
      usage: null,
      over_limit: [],
    },
  ],
  missed: [
    { medication_name: 'Lisinopril', time: '2026-11-20T08:00:00Z', source: 'unanswered' },
    { medication_name: 'Lisinopril', time: '2026-11-21T08:00:00Z', source: 'logged' },
  ],
};

/** The query of each report request, as an object. */
function reportRequests(fetchMock: ReturnType<typeof medsServer>): Record<string, string>[] {
  return requestsTo(fetchMock, 'GET', '/api/report').map(([input]) =>
    Object.fromEntries(new URL(requestUrl(input), 'http://x').searchParams),
  );
}

function cells(row: HTMLElement | undefined): string[] {
  return [...(row?.querySelectorAll('th, td') ?? [])].map((cell) => cell.textContent);
}

describe('doctor report', () => {
  it('shows the period, the person, each medication with schedule, dose, stock and adherence, and missed doses', async () => {
    signInForMeds();
    medsServer({ 'GET /api/report': () => ok(REPORT) });
    renderApp('/report');

    expect(await screen.findByRole('heading', { name: 'Medication report', level: 1 })).toBeTruthy();
    const table = await screen.findByTestId('report-medications');
    expect(screen.getByTestId('report-period').textContent).toBe('10/25/2026 to 11/23/2026');
    expect(screen.getByTestId('report-facts').textContent).toContain(USER.email);
    expect(screen.getByTestId('report-facts').textContent).toContain('Europe/Paris');

    const rows = within(table).getAllByRole('row');
    expect(cells(rows[0])).toEqual([
      'Medication',
      'Schedule',
      'Dose',
      'Stock',
      'Taken',
      'Skipped',
      'Missed',
      'Adherence',
    ]);
    expect(cells(rows[1])).toEqual([
      'Lisinopril',
      'Daily at 8:00 AMFrom 10/01/2026, no end date',
      '10 mg',
      '6 tablets Low stockruns out around 11/29/2026',
      '24',
      '2',
      '4',
      '80%',
    ]);
    expect(cells(rows[2])).toEqual([
      'Vitamin D',
      'Weekly on Monday and Thursday at 8:00 PMFrom 10/01/2026, no end date',
      '2 drops',
      'Not tracked',
      '0',
      '0',
      '0',
      'no doses',
    ]);
    expect(cells(rows[3])).toEqual(['All scheduled medications', '24', '2', '4', '80%']);

    const missed = within(screen.getByTestId('report-missed')).getAllByRole('row').slice(1);
    expect(missed.map((row) => cells(row).slice(1))).toEqual([
      ['Lisinopril', 'Never logged'],
      ['Lisinopril', 'Marked as missed'],
    ]);
  });

  it('asks for the last 30 days by default and for the period chosen', async () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 23, 10, 0), shouldAdvanceTime: true });
    signInForMeds();
    const fetchMock = medsServer({ 'GET /api/report': () => ok(REPORT) });
    renderApp('/report');
    await screen.findByTestId('report-medications');
    expect(reportRequests(fetchMock)).toEqual([{ from: '2026-10-25', to: '2026-11-23' }]);

    await userEvent.selectOptions(screen.getByLabelText('Period'), '90');
    await waitFor(() => expect(reportRequests(fetchMock)).toHaveLength(2));
    expect(reportRequests(fetchMock)[1]).toEqual({ from: '2026-08-26', to: '2026-11-23' });
    expect(screen.getByTestId('location-search').textContent).toBe('?days=90');
  });

  it('takes chosen dates, and refuses a start after the end without asking the server', async () => {
    signInForMeds();
    const fetchMock = medsServer({ 'GET /api/report': () => ok(REPORT) });
    renderApp('/report?days=30');
    await screen.findByTestId('report-medications');
    await userEvent.selectOptions(screen.getByLabelText('Period'), 'custom');

    const from = screen.getByLabelText('From');
    const to = screen.getByLabelText('To');
    await userEvent.clear(from);
    await userEvent.type(from, '2026-11-10');
    await userEvent.clear(to);
    await userEvent.type(to, '2026-11-01');
    await userEvent.click(screen.getByRole('button', { name: 'Show report' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The start date must be on or before the end date.');
    expect(reportRequests(fetchMock)).toHaveLength(1);

    await userEvent.clear(to);
    await userEvent.type(to, '2026-11-15');
    await userEvent.click(screen.getByRole('button', { name: 'Show report' }));
    await waitFor(() => expect(reportRequests(fetchMock)).toHaveLength(2));
    expect(reportRequests(fetchMock)[1]).toEqual({ from: '2026-11-10', to: '2026-11-15' });
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('prints with the Print button', async () => {
    signInForMeds();
    medsServer({ 'GET /api/report': () => ok(REPORT) });
    const print = vi.fn();
    vi.stubGlobal('print', print);
    renderApp('/report');
    await screen.findByTestId('report-medications');
    await userEvent.click(screen.getByRole('button', { name: 'Print' }));
    expect(print).toHaveBeenCalledTimes(1);
  });

  it('says why Print waits while the report loads', async () => {
    signInForMeds();
    const answer = deferred<Response>();
    medsServer({ 'GET /api/report': () => answer.promise });
    renderApp('/report');
    const print = await screen.findByRole('button', { name: 'Print' });
    const waiting = 'The report is still loading; it can be printed once it is shown.';
    expect(disabledState(print)).toEqual({ disabled: true, reason: waiting, title: waiting });
    answer.resolve(ok(REPORT));
    await screen.findByTestId('report-medications');
    expect(disabledState(print)).toEqual({ disabled: false, reason: null, title: null });
  });

  it('says there is nothing to print when the report did not load', async () => {
    signInForMeds();
    medsServer({ 'GET /api/report': () => fail('The report\u2019s start must not be after its end') });
    renderApp('/report?from=2026-11-10&to=2026-11-01');
    await screen.findByRole('alert');
    const nothing = 'The report did not load, so there is nothing to print.';
    expect(disabledState(screen.getByRole('button', { name: 'Print' }))).toEqual({
      disabled: true,
      reason: nothing,
      title: nothing,
    });
  });

  it('shows the server’s reason when the report cannot be made', async () => {
    signInForMeds();
    medsServer({ 'GET /api/report': () => fail('The report\u2019s start must not be after its end') });
    renderApp('/report?from=2026-11-10&to=2026-11-01');
    expect((await screen.findByRole('alert')).textContent).toBe('The report\u2019s start must not be after its end');
    expect(screen.queryByTestId('report-medications')).toBeNull();
  });

  it('is for signed-in people only', async () => {
    medsServer({ 'GET /api/report': () => ok(REPORT) });
    renderApp('/report');
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/login'));
  });
});

/** One medication of each schedule kind, as the server reports them. */
function medicationLine(id: number, name: string, changes: Record<string, unknown>): Record<string, unknown> {
  return {
    id,
    name,
    unit: 'mg',
    frequency: 'daily',
    default_quantity: 40,
    color: 'blue',
    stages: [],
    last_day: null,
    inventory: null,
    adherence: { taken: 0, skipped: 0, missed: 0, rate: null },
    usage: null,
    over_limit: [],
    ...changes,
  };
}

const EVERY_KIND = {
  ...REPORT,
  totals: { taken: 3, skipped: 0, missed: 1, rate: 0.75 },
  missed: [],
  medications: [
    medicationLine(1, 'Daily', { schedule: scheduleJson({ times: ['08:00'] }) }),
    medicationLine(2, 'Twice', {
      frequency: 'twice_daily',
      schedule: scheduleJson({ times: ['08:00', '20:00'], effective_times: ['08:00', '20:00'] }),
    }),
    medicationLine(3, 'Weekly', {
      frequency: 'weekly',
      schedule: scheduleJson({ times: ['20:00'], effective_times: ['20:00'], weekdays: [1, 4], effective_weekdays: [1, 4] }),
    }),
    medicationLine(4, 'Monthly', {
      frequency: 'monthly',
      schedule: scheduleJson({ times: ['09:00'], effective_times: ['09:00'], start_date: '2026-01-15' }),
    }),
    medicationLine(5, 'Interval', {
      schedule: scheduleJson({
        times: ['06:00'],
        effective_times: ['06:00', '14:00', '22:00'],
        interval_hours: 8,
        clock: 'elapsed',
        start_date: '2026-11-01',
        end_date: '2026-11-10',
      }),
      last_day: '2026-11-10',
      adherence: { taken: 3, skipped: 0, missed: 1, rate: 0.75 },
    }),
    medicationLine(6, 'Every third day', { schedule: scheduleJson({ times: ['08:00'], every_days: 3 }) }),
    medicationLine(7, 'Cycle', {
      schedule: scheduleJson({ times: ['21:00'], effective_times: ['21:00'], cycle_on_days: 21, cycle_off_days: 7 }),
    }),
    medicationLine(8, 'Prednisone', {
      schedule: scheduleJson({
        times: ['08:00'],
        start_date: '2026-11-01',
        steps: [
          { days: 5, quantity: 40 },
          { days: 5, quantity: 30 },
          { days: 1, quantity: 10 },
        ],
      }),
      stages: [
        { first_day: '2026-11-01', last_day: '2026-11-05', quantity: 40 },
        { first_day: '2026-11-06', last_day: '2026-11-10', quantity: 30 },
        { first_day: '2026-11-11', last_day: '2026-11-11', quantity: 10 },
      ],
      last_day: '2026-11-11',
    }),
    medicationLine(9, 'Ibuprofen', {
      frequency: 'as_needed',
      default_quantity: 400,
      schedule: scheduleJson({ effective_times: [], max_per_day: 3, min_gap_minutes: 240 }),
      adherence: null,
      usage: { taken: 5, days: 30, per_day: 0.17 },
      over_limit: [
        { time: '2026-11-20T13:00:00Z', limit: 'min_gap' },
        { time: '2026-11-20T20:00:00Z', limit: 'max_per_day' },
      ],
    }),
  ],
};

/** Each medication's name with its schedule's lines, and the cells after the schedule. */
async function reportRows(): Promise<{ name: string; lines: string[]; rest: string[] }[]> {
  const table = await screen.findByTestId('report-medications');
  return within(table)
    .getAllByRole('row')
    .slice(1, -1)
    .map((row) => ({
      name: cells(row)[0] ?? '',
      lines: within(row)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
      rest: cells(row).slice(2),
    }));
}

describe('doctor report: every regimen as Pillbox schedules it', () => {
  it('states each schedule kind line by line, and as-needed use instead of adherence', async () => {
    localStorage.setItem('dosage_app_settings', JSON.stringify({ dateFormat: 'MM/dd/yyyy', timeFormat: '12h' }));
    signInForMeds();
    medsServer({ 'GET /api/report': () => ok(EVERY_KIND) });
    renderApp('/report');
    const rows = await reportRows();
    expect(rows.map(({ name, lines }) => [name, lines])).toEqual([
      ['Daily', ['Daily at 8:00 AM', 'From 10/01/2026, no end date']],
      ['Twice', ['Twice daily at 8:00 AM and 8:00 PM', 'From 10/01/2026, no end date']],
      ['Weekly', ['Weekly on Monday and Thursday at 8:00 PM', 'From 10/01/2026, no end date']],
      ['Monthly', ['Monthly on day 15 at 9:00 AM', 'From 01/15/2026, no end date']],
      ['Interval', ['Every 8 hours from 6:00 AM', 'From 11/01/2026 to 11/10/2026']],
      ['Every third day', ['Every 3 days at 8:00 AM', 'From 10/01/2026, no end date']],
      ['Cycle', ['Daily at 9:00 PM', '21 days on, 7 off', 'From 10/01/2026, no end date']],
      [
        'Prednisone',
        [
          'Daily at 8:00 AM',
          '11/01/2026 to 11/05/2026: 40 mg',
          '11/06/2026 to 11/10/2026: 30 mg',
          '11/11/2026: 10 mg',
          'From 11/01/2026 to 11/11/2026',
        ],
      ],
      ['Ibuprofen', ['As needed', 'At most 3 doses in 24 hours', 'At least 4 h apart', 'From 10/01/2026, no end date']],
    ]);
    const byName = Object.fromEntries(rows.map((row) => [row.name, row.rest]));
    expect(byName.Prednisone).toEqual(['Per stage', 'Not tracked', '0', '0', '0', 'no doses']);
    expect(byName.Interval).toEqual(['40 mg', 'Not tracked', '3', '0', '1', '75%']);
    expect(byName.Ibuprofen).toEqual([
      '400 mg',
      'Not tracked',
      'As needed: not counted in adherence5 doses in 30 days · 0.17 a day2 taken anyway over a limit',
    ]);
    expect(cells(within(screen.getByTestId('report-medications')).getAllByRole('row').at(-1))).toEqual([
      'All scheduled medications',
      '3',
      '0',
      '1',
      '75%',
    ]);

    const overLimit = within(screen.getByTestId('report-over-limit')).getAllByRole('row').slice(1);
    expect(overLimit.map((row) => cells(row).slice(1))).toEqual([
      ['Ibuprofen', 'Taken anyway: less than 4 h after the dose before'],
      ['Ibuprofen', 'Taken anyway: more than 3 in 24 hours'],
    ]);
  });

  it('says the same in German', async () => {
    localStorage.setItem(
      'dosage_app_settings',
      JSON.stringify({ language: 'de', dateFormat: 'dd/MM/yyyy', timeFormat: '24h' }),
    );
    const { default: i18n } = await import('../i18n');
    await i18n.changeLanguage('de');
    signInForMeds();
    medsServer({ 'GET /api/report': () => ok(EVERY_KIND) });
    renderApp('/report');
    const rows = await reportRows();
    expect(rows.map(({ name, lines }) => [name, lines])).toEqual([
      ['Daily', ['Täglich um 08:00', 'Ab 01/10/2026, ohne Enddatum']],
      ['Twice', ['Zweimal täglich um 08:00 und 20:00', 'Ab 01/10/2026, ohne Enddatum']],
      ['Weekly', ['Wöchentlich am Montag und Donnerstag um 20:00', 'Ab 01/10/2026, ohne Enddatum']],
      ['Monthly', ['Monatlich am 15. um 09:00', 'Ab 15/01/2026, ohne Enddatum']],
      ['Interval', ['Alle 8 Stunden ab 06:00', 'Vom 01/11/2026 bis 10/11/2026']],
      ['Every third day', ['Alle 3 Tage um 08:00', 'Ab 01/10/2026, ohne Enddatum']],
      ['Cycle', ['Täglich um 21:00', '21 Tage Einnahme, 7 Pause', 'Ab 01/10/2026, ohne Enddatum']],
      [
        'Prednisone',
        [
          'Täglich um 08:00',
          'Vom 01/11/2026 bis 05/11/2026: 40 mg',
          'Vom 06/11/2026 bis 10/11/2026: 30 mg',
          '11/11/2026: 10 mg',
          'Vom 01/11/2026 bis 11/11/2026',
        ],
      ],
      ['Ibuprofen', ['Bei Bedarf', 'Höchstens 3 Einnahmen in 24 Stunden', 'Mindestens 4 Std. Abstand', 'Ab 01/10/2026, ohne Enddatum']],
    ]);
    const ibuprofen = rows.find((row) => row.name === 'Ibuprofen');
    expect(ibuprofen?.rest.at(-1)).toBe(
      'Bei Bedarf: zählt nicht zur Therapietreue5 Einnahmen in 30 Tagen · 0,17 pro Tag2 trotz Grenze genommen',
    );
    const overLimit = within(screen.getByTestId('report-over-limit')).getAllByRole('row').slice(1);
    expect(overLimit.map((row) => cells(row).slice(1))).toEqual([
      ['Ibuprofen', 'Trotzdem genommen: weniger als 4 Std. nach der vorigen Einnahme'],
      ['Ibuprofen', 'Trotzdem genommen: mehr als 3 in 24 Stunden'],
    ]);
  });
});

describe('privacy policy', () => {
  it('points to Data Management for the export it promises', async () => {
    medsServer({});
    renderApp('/privacy-policy');
    const link = await screen.findByRole('link', { name: 'Export or import your data in Settings → Data Management' });
    expect(link.getAttribute('href')).toBe('/settings?section=data');
  });
});

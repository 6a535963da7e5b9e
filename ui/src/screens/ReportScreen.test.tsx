import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestUrl } from '../test/fetchMock';
import { fail, medsServer, ok, requestsTo, signInForMeds, USER } from '../test/medications';
import { renderApp } from '../test/renderApp';

afterEach(() => {
  vi.useRealTimers();
});

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
      schedule: { effective_times: ['08:00'], effective_weekdays: [], start_date: '2026-10-01' },
      inventory: { current_quantity: 6, total_unit: 'tablets', stock_status: 'low', runs_out_on: '2026-11-29' },
      adherence: { taken: 24, skipped: 2, missed: 4, rate: 0.8 },
    },
    {
      id: 4,
      name: 'Vitamin D',
      unit: 'drops',
      frequency: 'weekly',
      default_quantity: 2,
      color: 'green',
      schedule: { effective_times: ['20:00'], effective_weekdays: [1, 4], start_date: '2026-10-01' },
      inventory: null,
      adherence: { taken: 0, skipped: 0, missed: 0, rate: null },
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
      'Daily at 8:00 AM',
      '10 mg',
      '6 tablets Low stockruns out around 11/29/2026',
      '24',
      '2',
      '4',
      '80%',
    ]);
    expect(cells(rows[2])).toEqual([
      'Vitamin D',
      'Weekly on Monday and Thursday at 8:00 PM',
      '2 drops',
      'Not tracked',
      '0',
      '0',
      '0',
      'no doses',
    ]);
    expect(cells(rows[3])).toEqual(['All medications', '24', '2', '4', '80%']);

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

describe('privacy policy', () => {
  it('points to Data Management for the export it promises', async () => {
    medsServer({});
    renderApp('/privacy-policy');
    const link = await screen.findByRole('link', { name: 'Export or import your data in Settings → Data Management' });
    expect(link.getAttribute('href')).toBe('/settings?section=data');
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { disabledState } from '../test/disabledReason';
import { deferred, jsonResponse, requestUrl, sentJson } from '../test/fetchMock';
import {
  entryJson,
  inventoryJson,
  medicationJson,
  medsServer,
  ok,
  requestsTo,
  signInForMeds,
} from '../test/medications';
import { renderApp } from '../test/renderApp';

afterEach(() => {
  vi.useRealTimers();
});

const adherence = {
  medications: [
    {
      medication_id: 3,
      name: 'Aspirin',
      color: 'blue',
      last7: { taken: 6, skipped: 1, missed: 0, rate: 0.857 },
      last30: { taken: 20, skipped: 5, missed: 5, rate: 0.667 },
    },
    {
      medication_id: 4,
      name: 'Inhaler',
      color: 'green',
      last7: { taken: 0, skipped: 0, missed: 0, rate: null },
      last30: { taken: 0, skipped: 0, missed: 0, rate: null },
    },
  ],
  daily: Array.from({ length: 30 }, (_, i) => ({
    date: `2026-10-${String(23 + i).padStart(2, '0')}`,
    taken: i % 2,
    skipped: i % 5 === 0 ? 1 : 0,
    missed: 0,
  })),
};

function page(pageNumber: number, total: number, count: number) {
  const entries = Array.from({ length: count }, (_, i) =>
    entryJson({
      id: 1000 - (pageNumber - 1) * 20 - i,
      taken: `2026-11-${String(20 - (i % 19)).padStart(2, '0')}T08:00:00Z`,
    }),
  );
  return jsonResponse({
    success: true,
    data: entries,
    pagination: {
      total,
      total_exact: true,
      has_more: (pageNumber - 1) * 20 + count < total,
      limit: 20,
      offset: (pageNumber - 1) * 20,
      page: pageNumber,
      pages: Math.ceil(total / 20),
    },
  });
}

function historyRequests(fetchMock: ReturnType<typeof medsServer>): URLSearchParams[] {
  return fetchMock.mock.calls
    .map(([input]) => new URL(requestUrl(input), 'http://x'))
    .filter((url) => url.pathname === '/api/medications/history')
    .map((url) => url.searchParams);
}

function server(routes: Parameters<typeof medsServer>[0] = {}) {
  signInForMeds();
  return medsServer({
    'GET /api/medications': () =>
      ok([
        medicationJson({ unit: 'tablets', default_quantity: 1, inventory: inventoryJson() }),
        medicationJson({ id: 4, name: 'Inhaler' }),
      ]),
    'GET /api/medications/adherence': () => ok(adherence),
    'GET /api/medications/history': () => page(1, 25, 20),
    ...routes,
  });
}

/** Opens History and adds an Inhaler entry at midnight through the dialog, which it returns. */
async function addInhalerEntry() {
  renderApp('/history');
  await screen.findAllByTestId('history-entry');
  await userEvent.click(screen.getByRole('button', { name: 'Add Historical Entry' }));
  const dialog = screen.getByRole('dialog');
  await userEvent.selectOptions(within(dialog).getByLabelText('Medication'), 'Inhaler');
  await userEvent.type(within(dialog).getByLabelText('Time'), '00:00');
  await userEvent.click(within(dialog).getByRole('button', { name: 'Add Entry' }));
  return dialog;
}

describe('History', () => {
  it('pages through the history with real controls', async () => {
    const fetchMock = server({
      'GET /api/medications/history': () => {
        const last = historyRequests(fetchMock).at(-1);
        return last?.get('page') === '2' ? page(2, 25, 5) : page(1, 25, 20);
      },
    });
    renderApp('/history');
    expect(await screen.findAllByTestId('history-entry')).toHaveLength(20);
    expect(screen.getByTestId('pager-position').textContent).toBe('Page 1 of 2');
    expect(screen.getByTestId('pager-summary').textContent).toBe('1–20 of 25 entries');
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Previous' }).disabled).toBe(true);
    expect(historyRequests(fetchMock)[0]?.toString()).toBe('limit=20&page=1');

    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getAllByTestId('history-entry')).toHaveLength(5));
    expect(screen.getByTestId('pager-position').textContent).toBe('Page 2 of 2');
    expect(screen.getByTestId('pager-summary').textContent).toBe('21–25 of 25 entries');
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Next' }).disabled).toBe(true);
    expect(screen.getByTestId('location-search').textContent).toBe('?page=2');
    expect(historyRequests(fetchMock).at(-1)?.get('page')).toBe('2');
  });

  it('says why the page buttons wait while a page loads', async () => {
    const second = deferred<Response>();
    const fetchMock = server({
      'GET /api/medications/history': () =>
        historyRequests(fetchMock).at(-1)?.get('page') === '2' ? second.promise : page(1, 25, 20),
    });
    renderApp('/history');
    await screen.findAllByTestId('history-entry');
    const next = screen.getByRole('button', { name: 'Next' });
    expect(disabledState(next)).toEqual({ disabled: false, reason: null, title: null });

    await userEvent.click(next);
    const waiting = 'Wait until this page has loaded.';
    await waitFor(() => expect(disabledState(next)).toEqual({ disabled: true, reason: waiting, title: waiting }));
    // Previous is off because this is the first page, which the page position says.
    expect(disabledState(screen.getByRole('button', { name: 'Previous' }))).toEqual({
      disabled: true,
      reason: null,
      title: null,
    });

    second.resolve(page(2, 25, 5));
    await waitFor(() => expect(screen.getAllByTestId('history-entry')).toHaveLength(5));
    expect(screen.queryByTestId('disabled-reason')).toBeNull();
  });

  it('filters by status, medication and dates, starting again at page 1', async () => {
    const fetchMock = server();
    renderApp('/history?page=2');
    await screen.findAllByTestId('history-entry');
    await userEvent.selectOptions(screen.getByLabelText('Status'), 'missed');
    await userEvent.selectOptions(screen.getByLabelText('Medication'), 'Inhaler');
    await waitFor(() =>
      expect(historyRequests(fetchMock).at(-1)?.toString()).toBe('limit=20&page=1&status=missed&medicationId=4'),
    );
    await userEvent.type(screen.getByLabelText('From'), '2026-11-01');
    await waitFor(() => expect(historyRequests(fetchMock).at(-1)?.get('date_from')).toBe('2026-11-01'));
    await userEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(historyRequests(fetchMock).at(-1)?.toString()).toBe('limit=20&page=1'));
  });

  it('shows each entry in the chosen date and time format, and switches its status', async () => {
    localStorage.setItem('dosage_app_settings', JSON.stringify({ timeFormat: '24h', dateFormat: 'yyyy-MM-dd' }));
    let stored = entryJson({ taken: '2026-11-20T08:05:00Z', quantity: 2, dosage_unit: 'tablets' });
    const fetchMock = server({
      'GET /api/medications/history': () =>
        jsonResponse({
          success: true,
          data: [stored],
          pagination: { total: 1, total_exact: true, has_more: false, limit: 20, offset: 0, page: 1, pages: 1 },
        }),
      'PUT /api/medications/history/50': (init) => {
        stored = { ...stored, ...(sentJson(init) as object) };
        return ok({ entry: stored, inventory: null });
      },
    });
    renderApp('/history');
    const [entry] = await screen.findAllByTestId('history-entry');
    if (!entry) throw new Error('an entry expected');
    const local = new Date('2026-11-20T08:05:00Z');
    const pad = (n: number) => String(n).padStart(2, '0');
    const day = `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())}`;
    const when = `${day} ${pad(local.getHours())}:${pad(local.getMinutes())}`;
    expect(entry.textContent).toContain(when);
    expect(entry.textContent).toContain('2 tablets');
    expect(within(entry).getByTestId('dose-status').textContent).toBe('Taken');
    expect(within(entry).queryByRole('button', { name: /^Mark taken/ })).toBeNull();

    await userEvent.click(within(entry).getByRole('button', { name: `Mark skipped: Aspirin, ${when}` }));
    await waitFor(() => expect(within(entry).getByTestId('dose-status').textContent).toBe('Skipped'));
    const [put] = requestsTo(fetchMock, 'PUT', '/api/medications/history/50');
    expect(sentJson(put?.[1])).toEqual({ status: 'skipped' });
    expect(within(entry).getByRole('button', { name: /^Mark taken/ })).toBeTruthy();
    expect(within(entry).getByRole('button', { name: /^Mark missed/ })).toBeTruthy();
  });

  it('deletes an entry only after confirmation', async () => {
    const remove = vi.fn(() => ok({ inventory: null }));
    server({ 'DELETE /api/medications/history/1000': remove });
    renderApp('/history');
    const [entry] = await screen.findAllByTestId('history-entry');
    if (!entry) throw new Error('an entry expected');
    await userEvent.click(within(entry).getByRole('button', { name: /^Delete the entry for Aspirin/ }));
    const dialog = screen.getByRole('dialog', { name: 'Delete this entry?' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await userEvent.keyboard('{Escape}');
    expect(remove).not.toHaveBeenCalled();
    await userEvent.click(within(entry).getByRole('button', { name: /^Delete the entry for Aspirin/ }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete Entry' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(remove).toHaveBeenCalledTimes(1);
    expect(screen.getByText('Entry deleted.')).toBeTruthy();
  });

  it('says "Failed to update entry" and "Failed to load medication history"', async () => {
    let broken = false;
    server({
      'PUT /api/medications/history/1000': () => new Response(null, { status: 500 }),
      'GET /api/medications/history': () => (broken ? new Response(null, { status: 500 }) : page(1, 1, 1)),
    });
    renderApp('/history');
    const [entry] = await screen.findAllByTestId('history-entry');
    if (!entry) throw new Error('an entry expected');
    await userEvent.click(within(entry).getByRole('button', { name: /^Mark missed/ }));
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to update entry');
    broken = true;
    await userEvent.selectOptions(screen.getByLabelText('Status'), 'taken');
    await waitFor(() => expect(screen.getByText('Failed to load medication history')).toBeTruthy());
  });

  it('shows adherence at a glance with a 30-day chart', async () => {
    server();
    renderApp('/history');
    const summary = await screen.findByTestId('adherence');
    const rows = within(summary).getAllByRole('row');
    expect(rows.map((row) => row.textContent)).toEqual(['Medication7 days30 days', 'Aspirin86%67%', 'Inhaler——']);
    const chart = within(summary).getByRole('img', { name: /Doses over the last 30 days/ });
    expect(chart.querySelector('desc')?.textContent).toBe('In total 15 taken, 6 skipped and 0 missed.');
    expect(chart.querySelectorAll('rect.chart-taken')).toHaveLength(15);
    expect(chart.querySelectorAll('rect.chart-skipped')).toHaveLength(6);
  });
});

describe('Add Historical Entry', () => {
  it('refuses future dates with the spec message and logs past ones', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 10, 21, 12, 0));
    const log = vi.fn(() => ok({ entry: entryJson(), inventory: null }, 201));
    const fetchMock = server({ 'POST /api/medications/3/doses': log });
    renderApp('/history');
    await screen.findAllByTestId('history-entry');
    await userEvent.click(screen.getByRole('button', { name: 'Add Historical Entry' }));
    const dialog = screen.getByRole('dialog', { name: 'Add Historical Entry' });
    const submit = within(dialog).getByRole('button', { name: 'Add Entry' });
    expect(within(dialog).getByLabelText<HTMLInputElement>('Date').max).toBe('2026-11-21');
    expect(within(dialog).getByLabelText<HTMLInputElement>('Affect inventory').checked).toBe(true);

    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe('Please select a medication');
    await userEvent.selectOptions(within(dialog).getByLabelText('Medication'), 'Aspirin');
    expect(within(dialog).getByLabelText<HTMLInputElement>('Quantity').value).toBe('1');
    expect(within(dialog).getByLabelText<HTMLSelectElement>('Unit').value).toBe('tablets');
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe('Please select both date and time');

    const date = within(dialog).getByLabelText('Date');
    const time = within(dialog).getByLabelText('Time');
    await userEvent.clear(date);
    await userEvent.type(date, '2026-11-22');
    await userEvent.type(time, '08:00');
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe('Cannot add entries for future dates');

    await userEvent.clear(date);
    await userEvent.type(date, '2026-11-21');
    await userEvent.clear(time);
    await userEvent.type(time, '12:30');
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe('Cannot add entries for future dates');
    expect(log).not.toHaveBeenCalled();

    await userEvent.clear(time);
    await userEvent.type(time, '07:45');
    await userEvent.click(within(dialog).getByLabelText('Missed'));
    await userEvent.click(within(dialog).getByLabelText('Affect inventory'));
    await userEvent.click(submit);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const [post] = requestsTo(fetchMock, 'POST', '/api/medications/3/doses');
    expect(sentJson(post?.[1])).toEqual({
      taken: new Date(2026, 10, 21, 7, 45).toISOString(),
      status: 'missed',
      quantity: 1,
      dosage_unit: 'tablets',
      affect_inventory: false,
    });
    expect(screen.getByText('Historical entry added.')).toBeTruthy();
  });

  it("shows the server's warning when a past dose's stock could not follow", async () => {
    server({
      'POST /api/medications/4/doses': () =>
        ok(
          {
            entry: entryJson({ medication_id: 4, medication_name: 'Inhaler' }),
            inventory: { current_quantity: 0, stock_status: 'out_of_stock' },
            warning: 'Stock ran out',
            warning_code: 'stock_short',
          },
          201,
        ),
    });
    await addInhalerEntry();
    expect((await screen.findByTestId('dose-warning')).textContent).toContain(
      'Inhaler: The dose was recorded. The stock ran out, so it is now 0.',
    );
    expect(screen.getByText('Historical entry added.')).toBeTruthy();
  });

  it('shows the server message, or "Failed to add historical entry"', async () => {
    server({ 'POST /api/medications/4/doses': () => new Response(null, { status: 500 }) });
    const dialog = await addInhalerEntry();
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Failed to add historical entry');
  });
});

import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { disabledState } from '../test/disabledReason';
import { deferred, sentJson } from '../test/fetchMock';
import {
  entryJson,
  fail,
  inventoryJson,
  medicationJson,
  medsServer,
  ok,
  requestsTo,
  signInForMeds,
} from '../test/medications';
import { renderApp } from '../test/renderApp';
import { settle, advance } from '../test/fakeClock';
import i18n from '../i18n';

afterEach(() => {
  vi.useRealTimers();
});

/** The `index`th element of a list the test expects to be there. */
function nth(list: HTMLElement[], index: number): HTMLElement {
  const found = list[index];
  if (!found) throw new Error(`no element ${index}`);
  return found;
}

const tablets = medicationJson({
  id: 3,
  name: 'Aspirin',
  unit: 'tablets',
  default_quantity: 2,
  inventory: inventoryJson({ current_quantity: 30 }),
  doses: [
    { id: 11, status: 'taken', taken: '2026-11-20T08:00:00Z', quantity: 2, dosage_unit: 'tablets' },
    { id: 10, status: 'missed', taken: '2026-11-19T08:00:00Z', quantity: 2, dosage_unit: 'tablets' },
  ],
});

async function openToday(routes: Parameters<typeof medsServer>[0]) {
  signInForMeds();
  const fetchMock = medsServer({ 'GET /api/medications': () => ok([tablets]), ...routes });
  renderApp('/today');
  const card = await screen.findByTestId('today-medication');
  return { fetchMock, card };
}

/** The server's answer to a dose it recorded with a warning about the stock. */
function warnedDose(
  inventory: { current_quantity: number; stock_status: string },
  warning: string,
  warningCode: string,
) {
  return ok({ entry: entryJson(), inventory, warning, warning_code: warningCode }, 201);
}

/** Logs the card's dose as taken through the confirmation dialog. */
async function logTaken(card: HTMLElement) {
  await userEvent.click(within(card).getByRole('button', { name: 'Taken' }));
  await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Log as Taken' }));
}

describe('Today', () => {
  it('lists each medication with Taken, Skip and Missed, its stock and recent doses', async () => {
    const { card } = await openToday({});
    expect(screen.getByRole('heading', { level: 1, name: 'Today' })).toBeTruthy();
    expect(within(card).getByRole('heading', { name: 'Aspirin' })).toBeTruthy();
    for (const name of ['Taken', 'Skip', 'Missed']) expect(within(card).getByRole('button', { name })).toBeTruthy();
    expect(within(card).getByTestId('stock-quantity').textContent).toBe('30 tablets');
    expect(within(card).getAllByTestId('dose-status').map((badge) => badge.textContent)).toEqual(['Taken', 'Missed']);
    expect(within(card).getByText('Daily at 9:00 AM', { exact: false })).toBeTruthy();
  });

  it('shows "No medications scheduled" with a link to add some', async () => {
    signInForMeds();
    medsServer({ 'GET /api/medications': () => ok([]) });
    renderApp('/today');
    expect((await screen.findByTestId('empty-state')).textContent).toContain('No medications scheduled');
    await userEvent.click(screen.getByRole('link', { name: 'Add Medications' }));
    expect(screen.getByTestId('location').textContent).toBe('/medications');
  });

  it('checks the dosage with the spec messages before logging', async () => {
    const { card, fetchMock } = await openToday({});
    await userEvent.click(within(card).getByRole('button', { name: 'Skip' }));
    const dialog = screen.getByRole('dialog', { name: 'Log a dose of Aspirin' });
    const quantity = within(dialog).getByLabelText<HTMLInputElement>('Quantity');
    expect(quantity.value).toBe('2');
    expect(within(dialog).getByLabelText<HTMLSelectElement>('Unit').value).toBe('tablets');
    expect(document.activeElement).toBe(quantity);
    const submit = within(dialog).getByRole('button', { name: 'Log as Skipped' });

    await userEvent.clear(quantity);
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe('Please enter a dosage amount');

    await userEvent.type(quantity, '-1');
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe(
      'Please enter a valid positive number for the dosage amount',
    );

    await userEvent.clear(quantity);
    await userEvent.type(quantity, '1');
    await userEvent.selectOptions(within(dialog).getByLabelText('Unit'), '');
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe('Please select a unit');

    expect(requestsTo(fetchMock, 'POST', '/api/medications/3/doses')).toEqual([]);

    // Taken with a unit the tablets cannot count: said, but never refused (the dose was taken).
    await userEvent.click(within(dialog).getByLabelText('Taken'));
    await userEvent.selectOptions(within(dialog).getByLabelText('Unit'), 'ml');
    expect(dialog.textContent).toContain('Cannot convert between ml and tablets');
    expect(dialog.textContent).toContain('The dose is still recorded; the stock stays as it is.');
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(within(card).getByRole('button', { name: 'Skip' }));
  });

  it('says "Logged!" for 2 s and shows the confirmation with its Undo for 10 s', async () => {
    const stock = { current_quantity: 28, stock_status: 'in_stock' };
    const logged = vi.fn(() => ok({ entry: entryJson(), inventory: stock }, 201));
    const { card, fetchMock } = await openToday({ 'POST /api/medications/3/doses': logged });
    await userEvent.click(within(card).getByRole('button', { name: 'Taken' }));
    const dialog = screen.getByRole('dialog', { name: 'Log a dose of Aspirin' });

    vi.useFakeTimers();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Log as Taken' }));
    await settle();

    expect(logged).toHaveBeenCalledTimes(1);
    const [post] = requestsTo(fetchMock, 'POST', '/api/medications/3/doses');
    expect(sentJson(post?.[1])).toEqual({ status: 'taken', quantity: 2, dosage_unit: 'tablets' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(within(card).getByRole('button', { name: 'Logged!' })).toBeTruthy();
    expect(screen.getByText('Aspirin logged as taken.').closest('[role="status"]')).not.toBeNull();
    expect(within(screen.getByTestId('today-feedback')).getByRole('button', { name: 'Undo logging Aspirin' })).toBeTruthy();

    await advance(1985);
    expect(within(card).queryByRole('button', { name: 'Logged!' })).not.toBeNull();
    await advance(15);
    expect(within(card).queryByRole('button', { name: 'Logged!' })).toBeNull();
    expect(within(card).getByRole('button', { name: 'Taken' })).toBeTruthy();
    expect(screen.queryByText('Aspirin logged as taken.')).not.toBeNull();

    await advance(7985);
    expect(screen.queryByText('Aspirin logged as taken.')).not.toBeNull();
    expect(screen.queryByRole('button', { name: 'Undo logging Aspirin' })).not.toBeNull();
    await advance(15);
    expect(screen.queryByText('Aspirin logged as taken.')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Undo logging Aspirin' })).toBeNull();
  });

  it('shows an error under "Error logging dosage" for 5 s', async () => {
    const { card } = await openToday({
      'POST /api/medications/3/doses': () => fail('Cannot convert between mg and tablets', 400, 'unit_incompatible', { from: 'mg', to: 'tablets' }),
    });
    await userEvent.click(within(card).getByRole('button', { name: 'Missed' }));
    const dialog = screen.getByRole('dialog', { name: 'Log a dose of Aspirin' });

    vi.useFakeTimers();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Log as Missed' }));
    await settle();
    const alert = within(dialog).getByRole('alert');
    expect(alert.textContent).toBe('Error logging dosageCannot convert between mg and tablets');
    expect(within(alert).getByText('Error logging dosage').className).toBe('form-error-heading');

    await advance(4985);
    expect(within(dialog).queryByText('Error logging dosage')).not.toBeNull();
    await advance(15);
    expect(within(dialog).queryByText('Error logging dosage')).toBeNull();
    expect(within(card).queryByRole('button', { name: 'Logged!' })).toBeNull();
  });

  it('falls back to "Failed to log dosage" when the server gives no message', async () => {
    const { card } = await openToday({
      'POST /api/medications/3/doses': () => new Response(null, { status: 500 }),
    });
    await userEvent.click(within(card).getByRole('button', { name: 'Taken' }));
    const dialog = screen.getByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Log as Taken' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Error logging dosageFailed to log dosage');
  });

  it('shows the server warning of a dose the stock could not follow, until dismissed', async () => {
    const { card } = await openToday({
      'POST /api/medications/3/doses': () =>
        warnedDose(
          { current_quantity: 30, stock_status: 'in_stock' },
          'Stock not updated: doses in mg cannot be counted in tablets',
          'stock_unit_mismatch',
        ),
    });
    await logTaken(card);
    const warning = await screen.findByTestId('dose-warning');
    expect(warning.textContent).toContain('Aspirin: The dose was recorded, but the stock was not updated');
    expect(warning.getAttribute('role')).toBe('status');
    await userEvent.click(within(warning).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('dose-warning')).toBeNull();
  });

  it('says a dose that emptied the stock was recorded and the stock is 0, never below', async () => {
    let current = 1;
    const { card } = await openToday({
      'GET /api/medications': () =>
        ok([{ ...tablets, inventory: inventoryJson({ current_quantity: current, stock_status: current > 0 ? 'low' : 'out_of_stock' }) }]),
      'POST /api/medications/3/doses': () => {
        current = -1;
        return warnedDose({ current_quantity: 0, stock_status: 'out_of_stock' }, 'Stock ran out', 'stock_short');
      },
    });
    await logTaken(card);
    expect((await screen.findByTestId('dose-warning')).textContent).toBe(
      'Aspirin: The dose was recorded. The stock ran out, so it is now 0.Dismiss',
    );
    // An older server may still answer a negative balance: it reads as none.
    await waitFor(() => expect(within(card).getByTestId('stock-quantity').textContent).toBe('0 tablets'));
    expect(within(card).getByTestId('stock-status').textContent).toBe('Out of stock');
  });

  it("lists today's scheduled doses with their state and logs one with a single tap", async () => {
    const schedule = {
      date: '2026-11-22',
      doses: [
        { medication_id: 3, name: 'Aspirin', color: 'blue', icon: 'pill-symbolic', unit: 'tablets', quantity: 2,
          scheduled_time: '2026-11-22T08:00:00Z', local_time: '08:00', status: 'taken', history_id: 11, reminder_id: 40 },
        { medication_id: 3, name: 'Aspirin', color: 'blue', icon: 'pill-symbolic', unit: 'tablets', quantity: 2,
          scheduled_time: '2026-11-22T13:00:00Z', local_time: '13:00', status: 'due', history_id: null, reminder_id: 41 },
        { medication_id: 3, name: 'Aspirin', color: 'blue', icon: 'pill-symbolic', unit: 'tablets', quantity: 2,
          scheduled_time: '2026-11-22T20:00:00Z', local_time: '20:00', status: 'upcoming', history_id: null, reminder_id: null },
      ],
    };
    // Like the server, the schedule answers what was logged (the screen asks again after a log).
    const answer = (index: number, status: string, id: number) => {
      const dose = schedule.doses[index];
      if (dose) Object.assign(dose, { status, history_id: id });
    };
    const logged = vi.fn(() => {
      answer(1, 'taken', 12);
      return ok({ entry: entryJson({ id: 12, status: 'taken' }), inventory: { current_quantity: 28, stock_status: 'in_stock' } }, 201);
    });
    const { fetchMock } = await openToday({
      'GET /api/medications/today': () => ok(schedule),
      'POST /api/medications/3/doses': logged,
    });
    const section = await screen.findByRole('region', { name: 'Scheduled today' });
    await waitFor(() => expect(within(section).getAllByTestId('today-dose')).toHaveLength(3));
    const rows = within(section).getAllByTestId('today-dose');
    expect(rows.map((row) => within(row).getByTestId('today-dose-status').textContent)).toEqual([
      'Taken',
      'Due',
      'Upcoming',
    ]);
    expect(within(nth(rows, 0)).queryByRole('button')).toBeNull();
    expect(nth(rows, 1).textContent).toContain('1:00 PM');

    await userEvent.click(within(nth(rows, 1)).getByRole('button', { name: 'Mark Aspirin at 1:00 PM as taken' }));
    await waitFor(() => expect(within(nth(rows, 1)).getByTestId('today-dose-status').textContent).toBe('Taken'));
    expect(within(nth(rows, 1)).queryByRole('button')).toBeNull();
    const [post] = requestsTo(fetchMock, 'POST', '/api/medications/3/doses');
    expect(sentJson(post?.[1])).toEqual({ status: 'taken', quantity: 2, dosage_unit: 'tablets', dosage_id: 41 });
    expect(screen.getByText('Aspirin logged as taken.').closest('[role="status"]')).not.toBeNull();

    // Without a reminder it names the dose by its time, so that no other dose's reminder
    // is taken for it.
    logged.mockImplementation(() => {
      answer(2, 'skipped', 13);
      return ok({ entry: entryJson({ id: 13, status: 'skipped' }), inventory: null }, 201);
    });
    await userEvent.click(within(nth(rows, 2)).getByRole('button', { name: 'Skip Aspirin at 8:00 PM' }));
    await waitFor(() => expect(within(nth(rows, 2)).getByTestId('today-dose-status').textContent).toBe('Skipped'));
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/medications/3/doses')[1]?.[1])).toEqual({
      status: 'skipped',
      quantity: 2,
      dosage_unit: 'tablets',
      scheduled_time: '2026-11-22T20:00:00Z',
    });
  });

  it('while one dose is being saved, the other Taken and Skip buttons say why they wait', async () => {
    const dose = (local: string, reminder: number) => ({
      medication_id: 3, name: 'Aspirin', color: 'blue', icon: 'pill-symbolic', unit: 'tablets', quantity: 2,
      scheduled_time: `2026-11-22T${local}:00Z`, local_time: local, status: 'due', history_id: null, reminder_id: reminder,
    });
    const saved = deferred<Response>();
    await openToday({
      'GET /api/medications/today': () => ok({ date: '2026-11-22', doses: [dose('08:00', 40), dose('13:00', 41)] }),
      'POST /api/medications/3/doses': () => saved.promise,
    });
    const section = await screen.findByRole('region', { name: 'Scheduled today' });
    await waitFor(() => expect(within(section).getAllByTestId('today-dose')).toHaveLength(2));
    const later = within(section).getByRole('button', { name: 'Mark Aspirin at 1:00 PM as taken' });
    expect(disabledState(later)).toEqual({ disabled: false, reason: null, title: null });

    await userEvent.click(within(section).getByRole('button', { name: 'Mark Aspirin at 8:00 AM as taken' }));
    const why = 'Saving Aspirin at 8:00 AM... The other doses can be logged once it is saved.';
    expect(disabledState(later)).toEqual({ disabled: true, reason: why, title: why });
    expect(disabledState(within(section).getByRole('button', { name: 'Skip Aspirin at 1:00 PM' }))).toEqual({
      disabled: true,
      reason: why,
      title: why,
    });

    saved.resolve(ok({ entry: entryJson({ id: 12, status: 'taken' }), inventory: null }, 201));
    await waitFor(() => expect(disabledState(later)).toEqual({ disabled: false, reason: null, title: null }));
    expect(within(section).queryByTestId('disabled-reason')).toBeNull();
  });

  it('keeps a one-tap log that failed open, with the reason', async () => {
    const schedule = {
      date: '2026-11-22',
      doses: [
        { medication_id: 3, name: 'Aspirin', color: 'blue', icon: 'pill-symbolic', unit: 'tablets', quantity: 2,
          scheduled_time: '2026-11-22T13:00:00Z', local_time: '13:00', status: 'due', history_id: null, reminder_id: 41 },
      ],
    };
    await openToday({
      'GET /api/medications/today': () => ok(schedule),
      'POST /api/medications/3/doses': () => fail('Medication not found', 404, 'medication_not_found'),
    });
    const row = await screen.findByTestId('today-dose');
    await userEvent.click(within(row).getByRole('button', { name: 'Mark Aspirin at 1:00 PM as taken' }));
    expect((await within(row).findByRole('alert')).textContent).toBe('Medication not found');
    expect(within(row).getByTestId('today-dose-status').textContent).toBe('Due');
  });

  it('warns on a medication whose reminders go out by no method', async () => {
    signInForMeds();
    medsServer({ 'GET /api/medications': () => ok([{ ...tablets, delivery_warning: 'no_method' }, { ...tablets, id: 4, name: 'Zinc' }]) });
    renderApp('/today');
    const cards = await screen.findAllByTestId('today-medication');
    expect(within(nth(cards, 0)).getByTestId('delivery-warning').textContent).toContain(
      'No reminder goes out for this medication: none of its delivery methods is switched on.',
    );
    expect(within(nth(cards, 1)).queryByTestId('delivery-warning')).toBeNull();
    await userEvent.click(within(nth(cards, 0)).getByRole('button', { name: 'Check its notification settings' }));
    expect(screen.getByRole('dialog', { name: /Aspirin/ })).toBeTruthy();
  });

  it('says "Failed to load medications" when the list cannot be loaded', async () => {
    signInForMeds();
    medsServer({ 'GET /api/medications': () => new Response(null, { status: 500 }) });
    renderApp('/today');
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to load medications');
  });

  it('asks "Take anyway?" when a dose is too soon, and sends it again confirmed only when told to', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 10, 22, 9, 0));
    let posts = 0;
    const { card, fetchMock } = await openToday({
      'POST /api/medications/3/doses': () => {
        posts += 1;
        return posts === 3
          ? ok({ entry: entryJson(), inventory: null, warning: null }, 201)
          : fail('The next dose is allowed at 14:30', 409, 'dose_too_soon', {
              next_allowed_at: new Date(2026, 10, 22, 14, 30).toISOString(),
              time: '14:30',
            });
      },
    });
    await logTaken(card);
    const ask = await screen.findByRole('dialog', { name: 'Take anyway?' });
    expect(within(ask).getByTestId('take-anyway-text').textContent).toBe('The next dose of Aspirin is allowed today at 2:30 PM.');
    expect(document.activeElement).toBe(within(ask).getByRole('button', { name: 'Cancel' }));
    await userEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();

    await logTaken(card);
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Take anyway?' })).getByRole('button', { name: 'Take anyway' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect((await screen.findByTestId('today-feedback')).textContent).toBe('Aspirin logged as taken.Undo');
    const sent = requestsTo(fetchMock, 'POST', '/api/medications/3/doses').map(([, init]) => sentJson(init));
    expect(sent).toEqual([
      { status: 'taken', quantity: 2, dosage_unit: 'tablets' },
      { status: 'taken', quantity: 2, dosage_unit: 'tablets' },
      { status: 'taken', quantity: 2, dosage_unit: 'tablets', confirm: true },
    ]);
  });

  it('shows "The next dose is allowed" on a card only while that is still to come', async () => {
    signInForMeds();
    const later = new Date(Date.now() + 60 * 60_000).toISOString();
    const earlier = new Date(Date.now() - 60_000).toISOString();
    medsServer({
      'GET /api/medications': () =>
        ok([
          { ...tablets, next_dose_allowed_at: later },
          { ...tablets, id: 4, name: 'Ibuprofen', next_dose_allowed_at: earlier },
        ]),
    });
    renderApp('/today');
    const cards = await screen.findAllByTestId('today-medication');
    expect(within(nth(cards, 0)).getByTestId('next-dose-allowed').textContent).toMatch(
      /^The next dose is allowed (today|tomorrow) at \d{1,2}:\d{2}\s[AP]M$/,
    );
    expect(within(nth(cards, 1)).queryByTestId('next-dose-allowed')).toBeNull();
  });

  it('offers one Taken per due dose: the card leaves it to the dose of today that is still open', async () => {
    const schedule = {
      date: '2026-11-22',
      doses: [
        { medication_id: 3, name: 'Aspirin', color: 'blue', icon: 'pill-symbolic', unit: 'tablets', quantity: 2,
          scheduled_time: '2026-11-22T13:00:00Z', local_time: '13:00', status: 'due', history_id: null, logged_at: null,
          reminder_id: 41 },
      ],
    };
    const { card } = await openToday({ 'GET /api/medications/today': () => ok(schedule) });
    const section = await screen.findByRole('region', { name: 'Scheduled today' });
    await within(section).findByRole('button', { name: 'Mark Aspirin at 1:00 PM as taken' });
    await waitFor(() => expect(within(card).queryByRole('button', { name: 'Taken' })).toBeNull());
    expect(within(card).queryByRole('button', { name: 'Skip' })).toBeNull();
    expect(screen.getAllByRole('button', { name: /taken/i })).toHaveLength(1);
  });

  it('asks "Already taken at 6:00 AM — log another dose?" before a second taken dose, in the person\'s time format', async () => {
    const schedule = {
      date: '2026-11-22',
      doses: [
        { medication_id: 3, name: 'Aspirin', color: 'blue', icon: 'pill-symbolic', unit: 'tablets', quantity: 2,
          scheduled_time: new Date(2026, 10, 22, 6, 0).toISOString(), local_time: '06:00', status: 'taken', history_id: 11,
          logged_at: new Date(2026, 10, 22, 6, 0).toISOString(), reminder_id: 40 },
      ],
    };
    const logged = vi.fn(() => ok({ entry: entryJson({ id: 12, status: 'taken' }), inventory: null }, 201));
    const { card } = await openToday({
      'GET /api/medications/today': () => ok(schedule),
      'POST /api/medications/3/doses': logged,
    });
    await screen.findByRole('region', { name: 'Scheduled today' });
    await waitFor(() => expect(within(screen.getByTestId('today-schedule')).getAllByTestId('today-dose')).toHaveLength(1));
    await userEvent.click(within(card).getByRole('button', { name: 'Taken' }));
    const ask = await screen.findByRole('dialog', { name: 'Already taken' });
    expect(ask.textContent).toContain('Already taken at 6:00 AM — log another dose?');
    await userEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(logged).not.toHaveBeenCalled();

    await userEvent.click(within(card).getByRole('button', { name: 'Taken' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Already taken' })).getByRole('button', { name: 'Log another dose' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Log a dose of Aspirin' })).getByRole('button', { name: 'Log as Taken' }));
    await waitFor(() => expect(logged).toHaveBeenCalledTimes(1));

    // Skipped and missed need no asking.
    await userEvent.click(within(card).getByRole('button', { name: 'Skip' }));
    expect(screen.getByRole('dialog', { name: 'Log a dose of Aspirin' })).toBeTruthy();
  });

  it('says the already-taken question in each language', () => {
    const question = (language: string) => i18n.getFixedT(language, 'meds')('today.alreadyTaken', { time: '06:00' });
    expect(question('en')).toBe('Already taken at 06:00 — log another dose?');
    expect(question('de')).toBe('Bereits um 06:00 genommen – eine weitere Einnahme erfassen?');
    expect(question('fr')).toBe('Déjà prise à 06:00 — enregistrer une autre prise ?');
    expect(question('es')).toBe('Ya tomada a las 06:00. ¿Registrar otra dosis?');
  });

  it('undoes a logged dose from the confirmation: the entry is deleted and the screen says so', async () => {
    const { card, fetchMock } = await openToday({
      'POST /api/medications/3/doses': () => ok({ entry: entryJson({ id: 12, status: 'taken' }), inventory: null }, 201),
      'DELETE /api/medications/history/12': () => ok({ inventory: { current_quantity: 30, stock_status: 'in_stock' } }),
    });
    await logTaken(card);
    const feedback = await screen.findByTestId('today-feedback');
    await userEvent.click(within(feedback).getByRole('button', { name: 'Undo logging Aspirin' }));
    await waitFor(() =>
      expect(screen.getByTestId('today-feedback').textContent).toBe('Undone: the dose of Aspirin is no longer recorded.'),
    );
    expect(requestsTo(fetchMock, 'DELETE', '/api/medications/history/12')).toHaveLength(1);
  });
});

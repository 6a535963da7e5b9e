import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { jsonResponse, requestUrl, sentJson } from '../test/fetchMock';
import {
  fail,
  inventoryJson,
  medicationJson,
  medsServer,
  ok,
  requestsTo,
  signInForMeds,
} from '../test/medications';
import { renderApp } from '../test/renderApp';

describe('Medications', () => {
  it('shows "No medications" and adds one with counted stock', async () => {
    signInForMeds();
    const created = medicationJson({
      id: 8,
      name: 'Ibuprofen',
      unit: 'tablets',
      default_quantity: 1,
      inventory: inventoryJson({ id: 8 }),
    });
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([]),
      'POST /api/medications': () => ok(created, 201),
    });
    renderApp('/medications');
    expect((await screen.findByTestId('empty-state')).textContent).toContain('No medications');

    const addButton = screen.getByRole('button', { name: 'Add Medication' });
    await userEvent.click(addButton);
    const dialog = screen.getByRole('dialog', { name: 'Add Medication' });
    expect(document.activeElement).toBe(within(dialog).getByLabelText('Name'));
    const submit = within(dialog).getByRole('button', { name: 'Add Medication' });

    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe('Name is required');

    await userEvent.type(within(dialog).getByLabelText('Name'), 'Ibuprofen');
    await userEvent.clear(within(dialog).getByLabelText('Default dose'));
    await userEvent.type(within(dialog).getByLabelText('Default dose'), '0');
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe(
      'Please enter a valid positive number for the dosage amount',
    );
    await userEvent.clear(within(dialog).getByLabelText('Default dose'));
    await userEvent.type(within(dialog).getByLabelText('Default dose'), '1');

    await userEvent.selectOptions(within(dialog).getByLabelText('Frequency'), 'twice_daily');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add time' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add time' }));
    const second = within(dialog).getByLabelText<HTMLInputElement>('Time 2');
    // The second dose starts 12 hours after the first.
    expect(second.value).toBe('21:00');
    await userEvent.clear(second);
    await userEvent.type(second, '21:30');
    await userEvent.click(within(dialog).getByLabelText('Green'));
    await userEvent.click(within(dialog).getByLabelText('Capsule'));

    await userEvent.click(within(dialog).getByRole('switch', { name: /Track stock/ }));
    await userEvent.clear(within(dialog).getByLabelText('Number of containers'));
    await userEvent.type(within(dialog).getByLabelText('Number of containers'), '0');
    await userEvent.type(within(dialog).getByLabelText('Items per container'), '10');
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert').textContent).toBe(
      'Container quantity must be a whole number of at least 1',
    );
    await userEvent.clear(within(dialog).getByLabelText('Number of containers'));
    await userEvent.type(within(dialog).getByLabelText('Number of containers'), '3');
    expect(within(dialog).getByTestId('inventory-form-total').textContent).toBe('Total: 30 tablets');
    await userEvent.click(submit);

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/medications')[0]?.[1])).toEqual({
      name: 'Ibuprofen',
      unit: 'tablets',
      frequency: 'twice_daily',
      color: 'green',
      icon: 'capsule-symbolic',
      notes: '',
      default_quantity: 1,
      schedule: { times: ['09:00', '21:30'], weekdays: [] },
      inventory: {
        enabled: true,
        inventory_type: 'discrete',
        container_type: 'blister_pack',
        container_quantity: 3,
        container_size: null,
        container_unit: null,
        item_quantity: 10,
        item_strength: null,
        item_unit: 'tablets',
        reminder_threshold: 10,
      },
    });
    const card = screen.getByTestId('medication-card');
    expect(within(card).getByTestId('stock-quantity').textContent).toBe('30 tablets');
    expect(within(card).getByTestId('stock-status').textContent).toBe('In stock');
    expect(document.activeElement).toBe(addButton);
  });

  it('shows the server message when adding fails', async () => {
    signInForMeds();
    medsServer({
      'GET /api/medications': () => ok([]),
      'POST /api/medications': () => fail("Unit 'spoons' is not a valid medical unit"),
    });
    renderApp('/medications');
    await userEvent.click(await screen.findByRole('button', { name: 'Add Medication' }));
    const dialog = screen.getByRole('dialog');
    await userEvent.type(within(dialog).getByLabelText('Name'), 'Syrup');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add Medication' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe("Unit 'spoons' is not a valid medical unit");
  });

  it('asks how many mg one tablet holds, refuses to save without it, and shows the server refusal', async () => {
    signInForMeds();
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([]),
      'POST /api/medications': () =>
        fail(
          'Stock is counted in tablets but doses are in mg: enter how many mg one tablet holds (item strength)',
          400,
          'strength_needed',
          { stock: 'tablets', unit: 'mg' },
        ),
    });
    renderApp('/medications');
    await userEvent.click(await screen.findByRole('button', { name: 'Add Medication' }));
    const dialog = screen.getByRole('dialog');
    await userEvent.type(within(dialog).getByLabelText('Name'), 'Lisinopril');
    await userEvent.selectOptions(within(dialog).getByLabelText('Unit'), 'mg');
    await userEvent.click(within(dialog).getByRole('switch', { name: /Track stock/ }));
    await userEvent.click(within(dialog).getByLabelText('Counted (tablets, capsules)'));
    await userEvent.type(within(dialog).getByLabelText('Items per container'), '10');
    await userEvent.selectOptions(within(dialog).getByLabelText('Item unit'), 'tablets');
    const strength = within(dialog).getByLabelText<HTMLInputElement>('How many mg does 1 tablet hold?');
    expect(strength.getAttribute('aria-required')).toBe('true');

    await userEvent.click(within(dialog).getByRole('button', { name: 'Add Medication' }));
    expect(within(dialog).getByRole('alert').textContent).toBe(
      'Stock is counted in tablets but doses are in mg: enter how many mg one item holds (item strength).',
    );
    expect(requestsTo(fetchMock, 'POST', '/api/medications')).toEqual([]);

    // The form is satisfied; the server still refuses (an older form, another rule): its words show.
    await userEvent.type(strength, '10');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add Medication' }));
    await waitFor(() => expect(requestsTo(fetchMock, 'POST', '/api/medications')).toHaveLength(1));
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/medications')[0]?.[1])).toMatchObject({
      unit: 'mg',
      inventory: { item_strength: 10, item_unit: 'tablets' },
    });
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'Stock is counted in tablets but doses are in mg: enter how many mg one item holds (item strength).',
    );
  });

  it('shows dosage, schedule, notes, stock badge and forecast on a card', async () => {
    signInForMeds();
    localStorage.setItem('dosage_app_settings', JSON.stringify({ timeFormat: '24h', dateFormat: 'dd/MM/yyyy' }));
    medsServer({
      'GET /api/medications': () =>
        ok([
          medicationJson({
            frequency: 'weekly',
            notes: 'After breakfast',
            schedule: {
              times: ['08:00'],
              weekdays: [1, 4],
              start_date: '2026-11-02',
              effective_times: ['08:00'],
              effective_weekdays: [1, 4],
            },
            inventory: inventoryJson({ current_quantity: 4, stock_status: 'low', runs_out_on: '2026-12-03' }),
          }),
          medicationJson({
            id: 4,
            name: 'Inhaler',
            frequency: 'as_needed',
            inventory: inventoryJson({ current_quantity: 0, stock_status: 'out_of_stock' }),
          }),
        ]),
    });
    renderApp('/');
    const [aspirin, inhaler] = await screen.findAllByTestId('medication-card');
    if (!aspirin || !inhaler) throw new Error('two cards expected');
    expect(within(aspirin).getByText('100 mg')).toBeTruthy();
    expect(within(aspirin).getByText('Weekly on Monday and Thursday at 08:00')).toBeTruthy();
    expect(within(aspirin).getByText('After breakfast')).toBeTruthy();
    expect(within(aspirin).getByTestId('stock-status').textContent).toBe('Low stock');
    expect(within(aspirin).getByTestId('runs-out').textContent).toBe('Runs out around 03/12/2026');
    expect(within(inhaler).getByText('As needed')).toBeTruthy();
    expect(within(inhaler).getByTestId('stock-status').textContent).toBe('Out of stock');
  });

  it('edits a card in place and cancels back to the view', async () => {
    signInForMeds();
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([medicationJson()]),
      'PUT /api/medications/3': () => ok(medicationJson({ name: 'Aspirin 100' })),
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    expect(within(card).getByRole('heading', { name: 'Edit Aspirin' })).toBeTruthy();
    await userEvent.click(within(card).getByRole('button', { name: 'Cancel' }));
    expect(within(card).getByRole('heading', { name: 'Aspirin' })).toBeTruthy();

    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    const name = within(card).getByLabelText('Name');
    await userEvent.clear(name);
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect(within(card).getByRole('alert').textContent).toBe('Name is required');
    await userEvent.type(name, 'Aspirin 100');
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect(await within(card).findByRole('heading', { name: 'Aspirin 100' })).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/medications/3')[0]?.[1])).toMatchObject({
      name: 'Aspirin 100',
      unit: 'mg',
      schedule: { times: [], weekdays: [], start_date: '2026-11-01' },
    });
  });

  it('says "Failed to update medication" when saving fails without a message', async () => {
    signInForMeds();
    medsServer({
      'GET /api/medications': () => ok([medicationJson()]),
      'PUT /api/medications/3': () => new Response(null, { status: 500 }),
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect((await within(card).findByRole('alert')).textContent).toBe('Failed to update medication');
  });

  it('asks before deleting and keeps the history unless the box is ticked', async () => {
    signInForMeds();
    const remove = vi.fn(() => ok(null));
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([medicationJson()]),
      'DELETE /api/medications/3': remove,
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Delete Aspirin' }));
    let dialog = screen.getByRole('dialog', { name: 'Delete Aspirin?' });
    const box = within(dialog).getByLabelText<HTMLInputElement>('Also delete its history');
    expect(box.checked).toBe(false);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(remove).not.toHaveBeenCalled();

    await userEvent.click(within(card).getByRole('button', { name: 'Delete Aspirin' }));
    dialog = screen.getByRole('dialog', { name: 'Delete Aspirin?' });
    await userEvent.click(within(dialog).getByLabelText('Also delete its history'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByTestId('empty-state')).toBeTruthy();
    const url = requestUrl(requestsTo(fetchMock, 'DELETE', '/api/medications/3')[0]?.[0] ?? '');
    expect(url).toBe('/api/medications/3?delete_history=true');
  });

  it('opens the notification preferences for one medication from its card', async () => {
    signInForMeds();
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([medicationJson()]),
      'GET /api/notifications/medications/3/preferences': () =>
        ok({ medication_id: 3, delivery_methods: ['push'], reminder_minutes_before: 15, custom_message: null, uses_defaults: true }),
      'PUT /api/notifications/medications/3/preferences': () =>
        ok({ medication_id: 3, delivery_methods: ['push'], reminder_minutes_before: 30, custom_message: null, uses_defaults: false }),
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Notification settings for Aspirin' }));
    const dialog = screen.getByRole('dialog', { name: 'Notification Settings for Aspirin' });
    for (const name of ['Save Settings', 'Test Notification', 'Cancel']) {
      expect(within(dialog).getByRole('button', { name })).toBeTruthy();
    }
    await userEvent.click(await within(dialog).findByRole('switch', { name: /Use my default settings/ }));
    await userEvent.selectOptions(within(dialog).getByLabelText('Remind me'), '30');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Settings' }));
    expect(await within(dialog).findByText('Preferences saved successfully!')).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/notifications/medications/3/preferences')[0]?.[1])).toEqual({
      delivery_methods: ['push'],
      reminder_minutes_before: 30,
      custom_message: '',
    });
    // It closes by itself 1.5 s after the save.
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('opens the global notification preferences from the header', async () => {
    signInForMeds();
    medsServer({
      'GET /api/medications': () => ok([]),
      'GET /api/notifications/preferences': () =>
        ok({ default_reminder_minutes_before: 60, default_delivery_methods: ['push'], email_available: true }),
    });
    renderApp('/medications');
    await screen.findByTestId('empty-state');
    await userEvent.click(screen.getByRole('button', { name: 'Notification settings' }));
    const dialog = screen.getByRole('dialog', { name: 'Notification Settings' });
    expect((await within(dialog).findByLabelText<HTMLSelectElement>('Remind me')).value).toBe('60');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('manages stock: validation, save, adjustment and the ledger', async () => {
    signInForMeds();
    const inventory = inventoryJson({ current_quantity: 29 });
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([medicationJson({ unit: 'tablets', inventory })]),
      'GET /api/medications/3/inventory': () => ok(inventory),
      'GET /api/medications/3/inventory/ledger': () =>
        jsonResponse({
          success: true,
          data: [
            { id: 2, change: -1, balance: 29, kind: 'dose', reason: null, history_id: 5, created_at: '2026-11-20T08:00:00Z' },
            { id: 1, change: 30, balance: 30, kind: 'initial', reason: null, history_id: null, created_at: '2026-11-19T08:00:00Z' },
          ],
          pagination: { total: 2, total_exact: true, has_more: false, limit: 10, offset: 0, page: 1, pages: 1 },
        }),
      'PUT /api/medications/3/inventory': () => ok(inventoryJson({ current_quantity: 29, reminder_threshold: 5 })),
      'POST /api/medications/3/inventory/adjust': () =>
        ok({ current_quantity: 59, stock_status: 'in_stock', inventory: inventoryJson({ current_quantity: 59 }) }),
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Inventory' }));
    const dialog = screen.getByRole('dialog', { name: 'Inventory: Aspirin' });
    expect((await within(dialog).findByTestId('ledger')).textContent).toContain('Dose taken');
    expect(within(dialog).getByTestId('inventory-summary').textContent).toContain('29 tablets');

    await userEvent.clear(within(dialog).getByLabelText('Items per container'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Inventory' }));
    expect(within(dialog).getByRole('alert').textContent).toBe(
      'Container type, item quantity and unit are required for discrete inventory',
    );
    await userEvent.type(within(dialog).getByLabelText('Items per container'), '10');
    await userEvent.clear(within(dialog).getByLabelText('Low stock at'));
    await userEvent.type(within(dialog).getByLabelText('Low stock at'), '5');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Inventory' }));
    expect(await within(dialog).findByText('Inventory updated')).toBeTruthy();
    // The count was not touched, so no correction is sent.
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/medications/3/inventory')[0]?.[1])).not.toHaveProperty(
      'current_quantity',
    );

    await userEvent.click(within(dialog).getByRole('button', { name: 'Adjust' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('Adjustment must be a non-zero number');
    await userEvent.type(within(dialog).getByLabelText('Amount (tablets)'), '30');
    await userEvent.type(within(dialog).getByLabelText('Reason (optional)'), 'Refill');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Adjust' }));
    expect(await within(dialog).findByText('Stock adjusted')).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/medications/3/inventory/adjust')[0]?.[1])).toEqual({
      adjustment: 30,
      reason: 'Refill',
    });
    await userEvent.keyboard('{Escape}');
    expect(within(card).getByTestId('stock-quantity').textContent).toBe('59 tablets');
  });

  it('pages through the whole ledger, ten changes at a time', async () => {
    signInForMeds();
    const inventory = inventoryJson({ current_quantity: 29 });
    const change = (id: number) => ({
      id,
      change: -1,
      balance: id,
      kind: 'adjustment',
      reason: `change ${id}`,
      history_id: null,
      created_at: '2026-11-20T08:00:00Z',
    });
    // 25 changes: pages of ten, the third one holding the oldest five.
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([medicationJson({ unit: 'tablets', inventory })]),
      'GET /api/medications/3/inventory': () => ok(inventory),
      'GET /api/medications/3/inventory/ledger': () => {
        const calls = requestsTo(fetchMock, 'GET', '/api/medications/3/inventory/ledger');
        const last = calls[calls.length - 1];
        const url = new URL(last ? requestUrl(last[0]) : '/', 'http://x');
        const page = Number(url.searchParams.get('page'));
        const limit = Number(url.searchParams.get('limit'));
        const ids = Array.from({ length: 25 }, (_, i) => 25 - i).slice((page - 1) * limit, page * limit);
        return jsonResponse({
          success: true,
          data: ids.map(change),
          pagination: {
            total: 25,
            total_exact: true,
            has_more: page * limit < 25,
            limit,
            offset: (page - 1) * limit,
            page,
            pages: Math.ceil(25 / limit),
          },
        });
      },
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Inventory' }));
    const dialog = screen.getByRole('dialog', { name: 'Inventory: Aspirin' });
    expect((await within(dialog).findByTestId('ledger')).textContent).toContain('change 25');
    const pages = within(dialog).getByRole('navigation', { name: 'Pages of stock changes' });
    expect(within(pages).getByTestId('pager-summary').textContent).toBe('1–10 of 25 entries');
    await userEvent.click(within(pages).getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(within(pages).getByTestId('pager-summary').textContent).toBe('11–20 of 25 entries'));
    await userEvent.click(within(pages).getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(within(pages).getByTestId('pager-summary').textContent).toBe('21–25 of 25 entries'));
    const rows = within(dialog).getByTestId('ledger').querySelectorAll('li');
    expect(rows).toHaveLength(5);
    expect(rows[4]?.textContent).toContain('change 1');
    expect(within(pages).getByRole<HTMLButtonElement>('button', { name: 'Next' }).disabled).toBe(true);
  });

  it('says "Failed to load inventory" when the stock cannot be loaded', async () => {
    signInForMeds();
    medsServer({
      'GET /api/medications': () => ok([medicationJson()]),
      'GET /api/medications/3/inventory': () => new Response(null, { status: 500 }),
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Inventory' }));
    expect((await within(screen.getByRole('dialog')).findByRole('alert')).textContent).toBe('Failed to load inventory');
  });
});

describe("the server's time zone", () => {
  function inParis() {
    const real = new Intl.DateTimeFormat().resolvedOptions();
    vi.spyOn(Intl.DateTimeFormat.prototype, 'resolvedOptions').mockReturnValue({ ...real, timeZone: 'Europe/Paris' });
  }

  it("asks before following the browser's zone, and switches only when told", async () => {
    signInForMeds();
    inParis();
    let zone = 'UTC';
    const fetchMock = medsServer({
      'GET /api/settings': () => ok({ timezone: zone, defaultReminderTime: '09:00' }),
      'PUT /api/settings': (init) => {
        zone = (sentJson(init) as { timezone: string }).timezone;
        return ok({ timezone: zone });
      },
      'GET /api/medications': () => ok([]),
    });
    renderApp('/medications');
    await screen.findByTestId('empty-state');
    const prompt = await screen.findByRole('region', { name: 'Time zone' });
    expect(prompt.textContent).toContain('use UTC, but this device is set to Europe/Paris');
    // Nothing changes on its own.
    expect(requestsTo(fetchMock, 'PUT', '/api/settings')).toEqual([]);

    await userEvent.click(within(prompt).getByRole('button', { name: 'Use Europe/Paris' }));
    await waitFor(() => expect(screen.queryByTestId('timezone-prompt')).toBeNull());
    const puts = requestsTo(fetchMock, 'PUT', '/api/settings');
    expect(puts.map(([, init]) => sentJson(init))).toEqual([{ timezone: 'Europe/Paris' }]);
    // "Today" moved: the list is loaded again.
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/medications')).toHaveLength(2));
  });

  it('keeps the stored zone when told, and does not ask again in this browser', async () => {
    signInForMeds();
    inParis();
    const fetchMock = medsServer({
      'GET /api/settings': () => ok({ timezone: 'America/New_York' }),
      'GET /api/medications': () => ok([]),
    });
    const { unmount } = renderApp('/today');
    const prompt = await screen.findByRole('region', { name: 'Time zone' });
    await userEvent.click(within(prompt).getByRole('button', { name: 'Keep America/New_York' }));
    expect(screen.queryByTestId('timezone-prompt')).toBeNull();
    unmount();

    renderApp('/today');
    await screen.findByTestId('empty-state');
    await waitFor(() => expect(requestsTo(fetchMock, 'GET', '/api/settings').length).toBeGreaterThanOrEqual(2));
    expect(screen.queryByTestId('timezone-prompt')).toBeNull();
    expect(requestsTo(fetchMock, 'PUT', '/api/settings')).toEqual([]);
  });

  it("asks for the server's settings once at the start: the zone question and the appearance sync share the answer", async () => {
    signInForMeds();
    inParis();
    const fetchMock = medsServer({
      'GET /api/settings': () => ok({ timezone: 'America/New_York', language: 'en' }),
      'GET /api/medications': () => ok([]),
    });
    renderApp('/today');
    await screen.findByRole('region', { name: 'Time zone' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requestsTo(fetchMock, 'GET', '/api/settings')).toHaveLength(1);
  });

  it('asks nothing when the zones agree', async () => {
    signInForMeds();
    inParis();
    medsServer({
      'GET /api/settings': () => ok({ timezone: 'Europe/Paris' }),
      'GET /api/medications': () => ok([]),
    });
    renderApp('/today');
    await screen.findByTestId('empty-state');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByTestId('timezone-prompt')).toBeNull();
  });
});

describe('schedule rules in the medication form', () => {
  it('keeps the rules behind "More schedule options", sends them, and shows an as-needed medication its limits', async () => {
    signInForMeds();
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([]),
      'POST /api/medications': () => ok(medicationJson({ id: 9, name: 'Paracetamol', frequency: 'as_needed' }), 201),
    });
    renderApp('/medications');
    await userEvent.click(await screen.findByRole('button', { name: 'Add Medication' }));
    const dialog = screen.getByRole('dialog', { name: 'Add Medication' });
    const more = within(dialog).getByRole('button', { name: 'More schedule options' });
    expect(more.getAttribute('aria-expanded')).toBe('false');
    expect(within(dialog).getByLabelText('Every N hours').closest('[hidden]')).not.toBeNull();
    await userEvent.click(more);
    expect(more.getAttribute('aria-expanded')).toBe('true');
    expect(within(dialog).getByLabelText('Every N hours').closest('[hidden]')).toBeNull();
    await userEvent.type(within(dialog).getByLabelText('Every N hours'), '25');
    await userEvent.type(within(dialog).getByLabelText('Name'), 'Paracetamol');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add Medication' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('Every N hours: enter a whole number from 1 to 24');

    // As needed: the limits are its schedule, shown without the disclosure.
    await userEvent.selectOptions(within(dialog).getByLabelText('Frequency'), 'as_needed');
    expect(within(dialog).queryByRole('button', { name: 'More schedule options' })).toBeNull();
    await userEvent.type(within(dialog).getByLabelText('Most doses in 24 hours'), '4');
    const gap = within(dialog).getByRole('group', { name: 'Least time between doses' });
    await userEvent.type(within(gap).getByLabelText('Hours'), '4');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add Medication' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/medications')[0]?.[1])).toMatchObject({
      frequency: 'as_needed',
      schedule: { times: [], weekdays: [], max_per_day: 4, min_gap_minutes: 240 },
    });
  });

  it('shows the server refusing a schedule next to the form', async () => {
    signInForMeds();
    medsServer({
      'GET /api/medications': () => ok([medicationJson()]),
      'PUT /api/medications/3': () => fail('A cycle needs a daily or twice_daily frequency', 400, 'validation_failed'),
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect((await within(card).findByRole('alert')).textContent).toBe('A cycle needs a daily or twice_daily frequency');
  });

  it('says when to order a refill, with the pharmacy, and marks it ordered', async () => {
    signInForMeds();
    const prescription = {
      prescriber: 'Dr. Weber',
      pharmacy_name: 'Apotheke am Markt',
      pharmacy_phone: '+49 30 1234567',
      pharmacy_url: 'https://apotheke.example/order',
      prescribed_on: '2026-10-01',
      expires_on: '2027-04-01',
      refills_authorised: 3,
      refills_left: 2,
      order_days_before: 7,
      ordered_at: null,
      refill: { reason: 'stock', due_on: '2026-12-06', order_by: '2026-11-29', late: false, ordered: false, new_prescription_needed: false },
    };
    const listed = medicationJson({ id: 4, name: 'Metformin', prescription });
    // Its day to order has passed: it says now, not a day gone by.
    const expiring = medicationJson({
      id: 5,
      name: 'Ramipril',
      prescription: {
        ...prescription,
        refill: { reason: 'expiry', due_on: '2026-12-01', order_by: '2026-11-24', late: true, ordered: false, new_prescription_needed: true },
      },
    });
    const ordered = medicationJson({
      id: 4,
      name: 'Metformin',
      prescription: { ...prescription, ordered_at: '2026-12-01T09:00:00Z', refill: { ...prescription.refill, ordered: true } },
    });
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([listed, expiring]),
      'POST /api/medications/4/refill-ordered': () => ok(ordered),
    });
    renderApp('/medications');
    const [line, late] = await screen.findAllByTestId('prescription-line');
    if (!line || !late) throw new Error('two prescription lines expected');
    expect(late.textContent).toContain('Ask for a new prescription now: the prescription expires on');
    expect(line.textContent).toContain('Prescribed by Dr. Weber · 2 refills left');
    expect(line.textContent).toContain('Order a refill today:');
    expect(line.textContent).toContain('the stock runs out around');
    expect(within(line).getByRole('link', { name: '+49 30 1234567' }).getAttribute('href')).toBe('tel:+49301234567');
    expect(within(line).getByRole('link', { name: 'Order online' }).getAttribute('href')).toBe('https://apotheke.example/order');

    await userEvent.click(within(line).getByRole('button', { name: 'Mark as ordered' }));
    await waitFor(() => expect(screen.getAllByTestId('prescription-line')[0]?.textContent).toContain('Refill ordered'));
    expect(requestsTo(fetchMock, 'POST', '/api/medications/4/refill-ordered')).toHaveLength(1);
    const first = screen.getAllByTestId('prescription-line')[0];
    if (!first) throw new Error('the first prescription line is gone');
    expect(within(first).queryByRole('button', { name: 'Mark as ordered' })).toBeNull();
  });
});

// The inventory dialog's stock batches: listed with what is left and their expiry (expired
// ones marked), added, edited and deleted through the server, and the medication card told of
// a batch that expires soon.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { jsonResponse, sentJson } from '../../test/fetchMock';
import { fail, inventoryJson, medicationJson, medsServer, ok, requestsTo, signInForMeds } from '../../test/medications';
import { renderApp } from '../../test/renderApp';

function batchJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 11,
    medication_id: 3,
    quantity: 20,
    remaining: 18,
    expires_on: '2026-12-31',
    lot: 'LATE-2',
    expired: false,
    expiring_soon: false,
    days_left: 40,
    created_at: '2026-11-01T08:00:00Z',
    updated_at: '2026-11-01T08:00:00Z',
    ...overrides,
  };
}

const expiring = batchJson({ id: 12, remaining: 3, quantity: 5, expires_on: '2026-11-30', lot: 'EARLY-1', expiring_soon: true, days_left: 9 });
const expired = batchJson({ id: 13, remaining: 4, quantity: 4, expires_on: '2026-10-31', lot: null, expired: true, days_left: -21 });

function batched() {
  return inventoryJson({
    current_quantity: 21,
    batches: { count: 3, expired_remaining: 4, expiring_soon: [expiring] },
  });
}

const emptyLedger = () =>
  jsonResponse({
    success: true,
    data: [],
    pagination: { total: 0, total_exact: true, has_more: false, limit: 10, offset: 0, page: 1, pages: 0 },
  });

const list = (batches: unknown[]) => ok({ batches, available: 21, expired_remaining: 4, unit: 'tablets', notice_days: 30 });

describe('Stock batches', () => {
  it('lists, adds, edits and deletes batches, and the card says which expires soon', async () => {
    signInForMeds();
    const inventory = batched();
    let batches = [expired, expiring, batchJson()];
    const fetchMock = medsServer({
      'GET /api/medications': () => ok([medicationJson({ unit: 'tablets', inventory })]),
      'GET /api/medications/3/inventory': () => ok(inventory),
      'GET /api/medications/3/inventory/ledger': emptyLedger,
      'GET /api/medications/3/inventory/batches': () => list(batches),
      'POST /api/medications/3/inventory/batches': () => {
        const added = batchJson({ id: 14, quantity: 30, remaining: 30, expires_on: '2027-06-30', lot: 'NEW-9' });
        batches = [...batches, added];
        return ok(added, 201);
      },
      'PUT /api/medications/3/inventory/batches/11': () => ok(batchJson({ remaining: 10 })),
      'DELETE /api/medications/3/inventory/batches/13': () => {
        batches = batches.filter((b) => b.id !== 13);
        return ok(null);
      },
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    expect(within(card).getByTestId('batch-expiring').textContent).toBe('Lot EARLY-1 expires on 11/30/2026 (3 tablets left)');
    expect(within(card).getByTestId('batch-expired').textContent).toBe('4 tablets in expired batches is not counted');

    await userEvent.click(within(card).getByRole('button', { name: 'Inventory' }));
    const dialog = screen.getByRole('dialog', { name: 'Inventory: Aspirin' });
    const rows = await within(dialog).findAllByTestId('batch');
    expect(rows.map((row) => row.textContent)).toEqual([
      'Batch without lot number4 tablets left of 4Expired on 10/31/2026 ExpiredEditDelete',
      'Lot EARLY-13 tablets left of 5Expires on 11/30/2026 Expires in 9 daysEditDelete',
      'Lot LATE-218 tablets left of 20Expires on 12/31/2026 EditDelete',
    ]);
    expect(rows[0]?.className).toContain('is-expired');
    // Stock kept in batches is changed through them, not adjusted or corrected as one number.
    expect(within(dialog).queryByRole('button', { name: 'Adjust' })).toBeNull();
    expect(within(dialog).queryByLabelText('Current stock')).toBeNull();

    // A batch without its expiry date is not sent.
    const add = within(dialog).getByRole('form', { name: 'New batch' });
    fireEvent.input(within(add).getByLabelText('Quantity (tablets)'), { target: { value: '30' } });
    await userEvent.click(within(add).getByRole('button', { name: 'Add batch' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('Enter the expiry date');
    expect(requestsTo(fetchMock, 'POST', '/api/medications/3/inventory/batches')).toEqual([]);
    fireEvent.input(within(add).getByLabelText('Expiry date'), { target: { value: '2027-06-30' } });
    fireEvent.input(within(add).getByLabelText('Lot number (optional)'), { target: { value: ' NEW-9 ' } });
    await userEvent.click(within(add).getByRole('button', { name: 'Add batch' }));
    await waitFor(() => expect(requestsTo(fetchMock, 'POST', '/api/medications/3/inventory/batches')).toHaveLength(1));
    expect(sentJson(requestsTo(fetchMock, 'POST', '/api/medications/3/inventory/batches')[0]?.[1])).toEqual({
      quantity: 30,
      expires_on: '2027-06-30',
      lot: 'NEW-9',
    });
    await waitFor(() => expect(within(dialog).getAllByTestId('batch')).toHaveLength(4));

    // Editing sends the batch with what is left.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Edit batch LATE-2' }));
    const remaining = within(dialog).getByLabelText('Left (tablets)');
    fireEvent.input(remaining, { target: { value: '10' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save batch' }));
    await waitFor(() => expect(requestsTo(fetchMock, 'PUT', '/api/medications/3/inventory/batches/11')).toHaveLength(1));
    expect(sentJson(requestsTo(fetchMock, 'PUT', '/api/medications/3/inventory/batches/11')[0]?.[1])).toEqual({
      quantity: 20,
      remaining: 10,
      expires_on: '2026-12-31',
      lot: 'LATE-2',
    });

    // Deleting asks once more.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete batch 2026-10-31' }));
    expect(requestsTo(fetchMock, 'DELETE', '/api/medications/3/inventory/batches/13')).toEqual([]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete this batch' }));
    await waitFor(() => expect(within(dialog).getAllByTestId('batch')).toHaveLength(3));
    expect(requestsTo(fetchMock, 'DELETE', '/api/medications/3/inventory/batches/13')).toHaveLength(1);
  });

  it("says the server's refusal in the person's words", async () => {
    signInForMeds();
    const inventory = batched();
    medsServer({
      'GET /api/medications': () => ok([medicationJson({ unit: 'tablets', inventory })]),
      'GET /api/medications/3/inventory': () => ok(inventory),
      'GET /api/medications/3/inventory/ledger': emptyLedger,
      'GET /api/medications/3/inventory/batches': () => list([batchJson()]),
      'DELETE /api/medications/3/inventory/batches/11': () => fail('Batch not found', 404, 'batch_not_found'),
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Inventory' }));
    const dialog = screen.getByRole('dialog', { name: 'Inventory: Aspirin' });
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Delete batch LATE-2' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete this batch' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('This batch no longer exists');
  });
});

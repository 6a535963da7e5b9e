// Today's "To order" notice, rendered by the Today screen against the server's answers.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { fail, medicationJson, medsServer, ok, requestsTo, signInForMeds } from '../../test/medications';
import { renderApp } from '../../test/renderApp';

const NEED = { reason: 'stock', due_on: '2026-12-06', order_by: '2026-11-29', late: false, ordered: false, new_prescription_needed: false };

function prescription(refill: Record<string, unknown> | null, overrides: Record<string, unknown> = {}) {
  return {
    prescriber: 'Dr. Weber',
    pharmacy_name: 'Apotheke am Markt',
    pharmacy_phone: '+49 (30) 123-4567',
    pharmacy_url: 'https://apotheke.example/order',
    prescribed_on: '2026-10-01',
    expires_on: '2027-04-01',
    refills_authorised: 3,
    refills_left: 2,
    order_days_before: 7,
    ordered_at: null,
    refill: refill && { ...NEED, ...refill },
    ...overrides,
  };
}

const metformin = medicationJson({ id: 4, name: 'Metformin', prescription: prescription({}) });
const metforminOrdered = medicationJson({
  id: 4,
  name: 'Metformin',
  prescription: prescription({ ordered: true }, { ordered_at: '2026-11-27T09:00:00Z' }),
});
// Its day to order has passed and no refills are left: a new prescription, now.
const ramipril = medicationJson({
  id: 5,
  name: 'Ramipril',
  prescription: prescription(
    { due_on: '2026-12-01', order_by: '2026-11-24', late: true, new_prescription_needed: true },
    { refills_left: 0, pharmacy_phone: '', pharmacy_url: '' },
  ),
});
const aspirin = medicationJson({ id: 3, name: 'Aspirin' });

async function openToday(medications: unknown[], routes: Parameters<typeof medsServer>[0] = {}) {
  signInForMeds();
  const fetchMock = medsServer({ 'GET /api/medications': () => ok(medications), ...routes });
  renderApp('/today');
  await screen.findAllByTestId('today-medication');
  return fetchMock;
}

/** The notice's entry for a medication. */
async function itemOf(name: string): Promise<HTMLElement> {
  const notice = await screen.findByTestId('refill-notice');
  const item = within(notice)
    .getAllByTestId('refill-item')
    .find((element) => within(element).queryByText(name) !== null);
  if (!item) throw new Error(`no refill notice for ${name}`);
  return item;
}

describe("Today's refill notice", () => {
  it('says which medication to order by when and why, with the pharmacy to call or order from', async () => {
    await openToday([aspirin, metformin]);
    const notice = await screen.findByTestId('refill-notice');
    expect(within(notice).getByRole('heading', { name: 'To order' })).toBeTruthy();
    expect(within(notice).getAllByTestId('refill-item')).toHaveLength(1);
    const item = await itemOf('Metformin');
    expect(item.textContent).toContain('Order a refill today: the stock runs out around 12/06/2026.');
    expect(item.textContent).toContain('Apotheke am Markt');
    expect(within(item).getByRole('link', { name: '+49 (30) 123-4567' }).getAttribute('href')).toBe('tel:+49301234567');
    const online = within(item).getByRole('link', { name: 'Order online' });
    expect(online.getAttribute('href')).toBe('https://apotheke.example/order');
    expect(online.getAttribute('rel')).toBe('noopener noreferrer');
    expect(within(item).getByRole('button', { name: 'Mark the refill of Metformin as ordered' }).textContent).toBe(
      'Mark as ordered',
    );
  });

  it('says "now" once the day to order has passed, and asks for a new prescription with no refills left', async () => {
    await openToday([metformin, ramipril]);
    const late = await itemOf('Ramipril');
    expect(late.textContent).toContain('Ask for a new prescription now: the stock runs out around 12/01/2026.');
    expect(late.textContent).not.toContain('11/24/2026');
    expect(late.className).toContain('is-late');
    // Without a phone or an ordering page, no links (the pharmacy's name alone).
    expect(within(late).queryAllByRole('link')).toHaveLength(0);
    // The first due first.
    const names = within(screen.getByTestId('refill-notice'))
      .getAllByTestId('refill-item')
      .map((item) => item.querySelector('strong')?.textContent);
    expect(names).toEqual(['Ramipril', 'Metformin']);
  });

  it('says when the prescription itself expires', async () => {
    const expiring = medicationJson({
      id: 6,
      name: 'Levothyroxine',
      prescription: prescription({ reason: 'expiry', due_on: '2026-12-03', order_by: '2026-11-26', late: true, new_prescription_needed: true }),
    });
    await openToday([expiring]);
    expect((await itemOf('Levothyroxine')).textContent).toContain(
      'Ask for a new prescription now: the prescription expires on 12/03/2026.',
    );
  });

  it('is not there when nothing needs ordering, or the refill is ordered already', async () => {
    const quiet = medicationJson({ id: 7, name: 'Vitamin D', prescription: prescription(null) });
    await openToday([aspirin, quiet, metforminOrdered]);
    expect(screen.getAllByTestId('today-medication')).toHaveLength(3);
    expect(screen.queryByTestId('refill-notice')).toBeNull();
  });

  it('marks a refill ordered: the server is told, the notice goes and Today says so', async () => {
    const fetchMock = await openToday([metformin], {
      'POST /api/medications/4/refill-ordered': () => ok(metforminOrdered),
    });
    const item = await itemOf('Metformin');
    await userEvent.click(within(item).getByRole('button', { name: 'Mark the refill of Metformin as ordered' }));
    await waitFor(() => expect(screen.queryByTestId('refill-notice')).toBeNull());
    expect(requestsTo(fetchMock, 'POST', '/api/medications/4/refill-ordered')).toHaveLength(1);
    expect(screen.getByTestId('today-feedback').textContent).toBe(
      'Refill of Metformin marked as ordered: add the stock when it arrives.',
    );
    // The medication's card stays.
    expect(within(screen.getByTestId('today-medication')).getByRole('heading', { name: 'Metformin' })).toBeTruthy();
  });

  it('keeps the others when one is marked ordered, and says why the server refused', async () => {
    await openToday([metformin, ramipril], {
      'POST /api/medications/5/refill-ordered': () =>
        fail('This medication has no prescription: add one to order refills', 404, 'prescription_not_found'),
      'POST /api/medications/4/refill-ordered': () => ok(metforminOrdered),
    });
    const late = await itemOf('Ramipril');
    await userEvent.click(within(late).getByRole('button', { name: 'Mark the refill of Ramipril as ordered' }));
    expect((await within(late).findByRole('alert')).textContent).toMatch(/no prescription/i);
    await userEvent.click(
      within(await itemOf('Metformin')).getByRole('button', { name: 'Mark the refill of Metformin as ordered' }),
    );
    await waitFor(() => expect(within(screen.getByTestId('refill-notice')).getAllByTestId('refill-item')).toHaveLength(1));
    expect(screen.getByTestId('refill-notice').textContent).toContain('Ramipril');
  });

  it('offers no "Mark as ordered" to a carer who may only view, and says whose it is', async () => {
    signInForMeds();
    const people = [
      { id: 1, name: 'Pat', is_self: true, archived: false, role: 'owner', owner_name: 'Pat', carer_id: null, home_assistant: false, created_at: '' },
      { id: 5, name: 'Mum', is_self: false, archived: false, role: 'view', owner_name: 'Sam', carer_id: 40, home_assistant: false, created_at: '' },
    ];
    const mums = medicationJson({ id: 8, name: 'Digoxin', person_id: 5, prescription: prescription({}) });
    medsServer({
      'GET /api/people': () => ok(people),
      'GET /api/medications': (_init, url) => ok(url.searchParams.get('person_id') === '5' ? [mums] : [metformin]),
    });
    renderApp('/today');
    const digoxin = await itemOf('Digoxin');
    await waitFor(() => expect(within(digoxin).getByTestId('medication-person').textContent).toBe('Mum'));
    expect(within(digoxin).queryByRole('button')).toBeNull();
    expect(within(await itemOf('Metformin')).getByRole('button', { name: /Metformin/ })).toBeTruthy();
  });

  it('speaks German', async () => {
    localStorage.setItem('dosage_app_settings', JSON.stringify({ language: 'de' }));
    await i18n.changeLanguage('de');
    await openToday([metformin, ramipril]);
    const notice = await screen.findByTestId('refill-notice');
    expect(within(notice).getByRole('heading', { name: 'Zu bestellen' })).toBeTruthy();
    expect((await itemOf('Metformin')).textContent).toContain('Heute nachbestellen: der Vorrat reicht etwa bis 06.12.2026.');
    expect((await itemOf('Ramipril')).textContent).toContain('Jetzt um ein neues Rezept bitten:');
    expect(within(await itemOf('Metformin')).getByRole('button', { name: 'Nachbestellung von Metformin als bestellt markieren' }).textContent).toBe(
      'Als bestellt markieren',
    );
  });
});

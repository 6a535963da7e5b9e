// The server's refusals of a prescription field or a stock batch, said in the person's language
// (issue 29): each has its own code, and a field the refusal names is called what the form
// calls it.
import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { jsonResponse, sentJson } from '../../test/fetchMock';
import { fail, inventoryJson, medicationJson, medsServer, ok, requestsTo, signInForMeds } from '../../test/medications';
import { renderApp } from '../../test/renderApp';

/** The app in `language`, as a person who chose it in Settings has it. */
async function speak(language: 'en' | 'de') {
  localStorage.setItem('dosage_app_settings', JSON.stringify({ language }));
  await i18n.changeLanguage(language);
}

/** Opens the first card's form, turns its prescription on and answers `refusal` to the save. */
async function saveRefused(refusal: () => Response, language: 'en' | 'de') {
  signInForMeds();
  await speak(language);
  const fetchMock = medsServer({
    'GET /api/medications': () => ok([medicationJson()]),
    'PUT /api/medications/3': refusal,
  });
  renderApp('/medications');
  const card = await screen.findByTestId('medication-card');
  await userEvent.click(within(card).getByRole('button', { name: language === 'de' ? 'Bearbeiten' : 'Edit' }));
  const prescription = within(card).getByTestId('prescription-fields');
  await userEvent.click(within(prescription).getByRole('switch'));
  return { card, prescription, fetchMock };
}

describe('prescription and batch refusals', () => {
  it('says a refused pharmacy phone in the app’s words, not the server’s', async () => {
    const { card, prescription, fetchMock } = await saveRefused(
      () => fail("The pharmacy's phone can have digits, spaces and + - ( ) / . only", 400, 'pharmacy_phone_invalid', { field: 'pharmacy_phone' }),
      'en',
    );
    fireEvent.input(within(prescription).getByLabelText('Pharmacy phone'), { target: { value: 'call me' } });
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect((await within(card).findByRole('alert')).textContent).toBe(
      'The pharmacy phone can have digits, spaces and + - ( ) / . only.',
    );
    const sent = sentJson(requestsTo(fetchMock, 'PUT', '/api/medications/3')[0]?.[1]) as { prescription: { pharmacy_phone: string } };
    expect(sent.prescription.pharmacy_phone).toBe('call me');
  });

  it('names the refused field as the German form does', async () => {
    const { card, prescription } = await saveRefused(
      () => fail('The prescriber can be at most 200 characters', 400, 'prescription_text_too_long', { field: 'prescriber', max: '200' }),
      'de',
    );
    // The expiry field's label is a label, not the refill line's sentence.
    expect(within(prescription).getByLabelText('Gültig bis')).toBeTruthy();
    fireEvent.input(within(prescription).getByLabelText('Verschrieben von'), { target: { value: 'Dr. Weber' } });
    await userEvent.click(within(card).getByRole('button', { name: 'Speichern' }));
    expect((await within(card).findByRole('alert')).textContent).toBe('Verschrieben von: höchstens 200 Zeichen.');
  });

  it('says a refused batch in German', async () => {
    signInForMeds();
    await speak('de');
    const inventory = inventoryJson({ current_quantity: 0, batches: { count: 0, expired_remaining: 0, expiring_soon: [] } });
    medsServer({
      'GET /api/medications': () => ok([medicationJson({ unit: 'tablets', inventory })]),
      'GET /api/medications/3/inventory': () => ok(inventory),
      'GET /api/medications/3/inventory/ledger': () =>
        jsonResponse({
          success: true,
          data: [],
          pagination: { total: 0, total_exact: true, has_more: false, limit: 10, offset: 0, page: 1, pages: 0 },
        }),
      'POST /api/medications/3/inventory/batches': () =>
        fail('Quantity must be at most 100000', 400, 'batch_quantity_out_of_range', { max: '100000' }),
    });
    renderApp('/medications');
    const card = await screen.findByTestId('medication-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Vorrat' }));
    const dialog = screen.getByRole('dialog', { name: /Aspirin/ });
    const add = await within(dialog).findByRole('form', { name: 'Neue Charge' });
    fireEvent.input(within(add).getByLabelText(/^Menge/), { target: { value: '200000' } });
    fireEvent.input(within(add).getByLabelText('Verfallsdatum'), { target: { value: '2027-06-30' } });
    await userEvent.click(within(add).getByRole('button', { name: 'Charge hinzufügen' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Eine Charge enthält mehr als 0 und höchstens 100000.');
  });
});

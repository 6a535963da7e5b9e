import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, registerUser, signIn, test, type TestUser } from './fixtures';
import { PRESCRIPTION, createMedication, localDate, prescribedTablet } from './medsHelpers';

// A medication's prescription, entered, changed and removed on the Medications screen
// (issue 29): the form's fields, the line on the card, and the app's own words when the server
// refuses a value.

const auth = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });

/** A daily tablet with two months of stock: nothing to order, so the card shows only the facts. */
const METFORMIN = prescribedTablet('Metformin', 60, null);

interface SavedPrescription {
  prescriber: string;
  pharmacy_name: string;
  pharmacy_phone: string;
  pharmacy_url: string;
  prescribed_on: string | null;
  expires_on: string | null;
  refills_authorised: number | null;
  refills_left: number | null;
  order_days_before: number;
}

/** The medication's prescription as the server keeps it. */
async function savedPrescription(request: APIRequestContext, user: TestUser, id: number): Promise<SavedPrescription | null> {
  const response = await request.get(`/api/medications/${id}`, { headers: auth(user) });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { data: { prescription: SavedPrescription | null } }).data.prescription;
}

/** A fresh account in `language`, signed in on the Medications screen. */
async function personAt(page: Page, request: APIRequestContext, language: string): Promise<TestUser> {
  const user = await registerUser(request);
  const chosen = await request.put('/api/settings', { headers: auth(user), data: { language } });
  expect(chosen.ok(), await chosen.text()).toBe(true);
  await signIn(page, user, '/medications');
  await page.evaluate((lang) => localStorage.setItem('dosage_app_settings', JSON.stringify({ language: lang })), language);
  await page.reload();
  return user;
}

/** Opens the card's form ("Edit"); returns the card, which now holds the form. */
async function edit(page: Page, name: string, editLabel = 'Edit'): Promise<Locator> {
  const card = page.getByTestId('medication-card').filter({ hasText: name });
  await card.getByRole('button', { name: editLabel }).click();
  const form = page.getByTestId('medication-card').filter({ has: page.getByTestId('prescription-fields') });
  await expect(form).toBeVisible();
  return form;
}

/**
 * The refusal is where the form brought it (the Save button is far below it on a phone): in
 * view, and not under the top bar that stays over the page.
 */
async function alertClearOfTopBar(page: Page, alert: Locator): Promise<void> {
  await expect(alert).toBeInViewport({ ratio: 0.95 });
  const bar = await page.getByRole('banner').boundingBox();
  const box = await alert.boundingBox();
  expect(bar).not.toBeNull();
  expect(box?.y ?? -1).toBeGreaterThanOrEqual((bar?.y ?? 0) + (bar?.height ?? 0));
}

async function noSidewaysScroll(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
  expect(widths.page).toBeLessThanOrEqual(widths.screen);
}

test.describe('a prescription on the Medications screen', () => {
  test('is added in the form, shows on the card, comes back in the form, changes and goes', async ({ page, request }) => {
    const user = await personAt(page, request, 'en');
    const { id } = await createMedication(request, user, METFORMIN);
    await page.reload();
    const card = page.getByTestId('medication-card').filter({ hasText: 'Metformin' });
    await expect(card.getByTestId('prescription-line')).toHaveCount(0);

    const prescribedOn = await localDate(page, -10);
    const expiresOn = await localDate(page, 200);
    let form = await edit(page, 'Metformin');
    const fields = form.getByTestId('prescription-fields');
    await fields.getByRole('switch', { name: /^Prescription/ }).check();
    await fields.getByLabel('Prescribed by').fill('Dr. Weber');
    await fields.getByLabel('Pharmacy', { exact: true }).fill('Apotheke am Markt');
    await fields.getByLabel('Pharmacy phone').fill('+49 30 1234567');
    await fields.getByLabel('Pharmacy ordering page').fill('https://apotheke.example/order');
    await fields.getByLabel('Prescribed on').fill(prescribedOn);
    await fields.getByLabel('Expires on').fill(expiresOn);
    await fields.getByLabel('Refills authorised').fill('3');
    await fields.getByLabel('Refills left').fill('2');
    await expect(fields.getByLabel('Order this many days ahead')).toHaveValue('7');
    await fields.getByLabel('Order this many days ahead').fill('10');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(fields).toBeHidden();

    // The card: who prescribed it, the refills left, the expiry, and the pharmacy to call or
    // order from. Nothing to order yet: two months of stock, a prescription good for longer.
    const line = card.getByTestId('prescription-line');
    await expect(line).toContainText(/^Prescribed by Dr\. Weber · 2 refills left · expires \d{1,2}\/\d{1,2}\/\d{4}/);
    const pharmacy = line.getByTestId('pharmacy');
    await expect(pharmacy).toContainText('Apotheke am Markt');
    await expect(pharmacy.getByRole('link', { name: '+49 30 1234567' })).toHaveAttribute('href', 'tel:+49301234567');
    await expect(pharmacy.getByRole('link', { name: 'Order online' })).toHaveAttribute('href', 'https://apotheke.example/order');
    await expect(line.getByRole('button', { name: 'Mark as ordered' })).toHaveCount(0);
    expect(await savedPrescription(request, user, id)).toMatchObject({
      ...PRESCRIPTION,
      prescribed_on: prescribedOn,
      expires_on: expiresOn,
      order_days_before: 10,
    });

    // After a reload the form holds what was saved; one value changes.
    await page.reload();
    form = await edit(page, 'Metformin');
    await expect(fields.getByRole('switch', { name: /^Prescription/ })).toBeChecked();
    await expect(fields.getByLabel('Prescribed by')).toHaveValue('Dr. Weber');
    await expect(fields.getByLabel('Pharmacy', { exact: true })).toHaveValue('Apotheke am Markt');
    await expect(fields.getByLabel('Pharmacy phone')).toHaveValue('+49 30 1234567');
    await expect(fields.getByLabel('Pharmacy ordering page')).toHaveValue('https://apotheke.example/order');
    await expect(fields.getByLabel('Prescribed on')).toHaveValue(prescribedOn);
    await expect(fields.getByLabel('Expires on')).toHaveValue(expiresOn);
    await expect(fields.getByLabel('Refills authorised')).toHaveValue('3');
    await expect(fields.getByLabel('Refills left')).toHaveValue('2');
    await expect(fields.getByLabel('Order this many days ahead')).toHaveValue('10');
    await fields.getByLabel('Refills left').fill('1');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(fields).toBeHidden();
    await expect(line).toContainText(/^Prescribed by Dr\. Weber · 1 refill left · /);
    expect(await savedPrescription(request, user, id)).toMatchObject({ refills_left: 1, refills_authorised: 3 });

    // Switched off and saved: the prescription is gone, on the card and on the server.
    form = await edit(page, 'Metformin');
    await fields.getByRole('switch', { name: /^Prescription/ }).uncheck();
    await expect(fields.getByLabel('Prescribed by')).toHaveCount(0);
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(fields).toBeHidden();
    await expect(card.getByTestId('stock-quantity')).toHaveText('60 tablets');
    await expect(card.getByTestId('prescription-line')).toHaveCount(0);
    expect(await savedPrescription(request, user, id)).toBeNull();
    await page.reload();
    await expect(card.getByRole('heading', { name: 'Metformin' })).toBeVisible();
    await expect(card.getByTestId('prescription-line')).toHaveCount(0);
  });
});

test.describe('a refused prescription value, on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  const cases = [
    {
      language: 'en',
      edit: 'Edit',
      save: 'Save',
      phone: 'Pharmacy phone',
      authorised: 'Refills authorised',
      left: 'Refills left',
      phoneRefused: 'The pharmacy phone can have digits, spaces and + - ( ) / . only.',
      leftRefused: 'Refills left cannot be more than the refills authorised.',
    },
    {
      language: 'de',
      edit: 'Bearbeiten',
      save: 'Speichern',
      phone: 'Telefon der Apotheke',
      authorised: 'Erlaubte Wiederholungen',
      left: 'Verbleibende Wiederholungen',
      phoneRefused: 'Das Telefon der Apotheke darf nur Ziffern, Leerzeichen und + - ( ) / . enthalten.',
      leftRefused: 'Es können nicht mehr Wiederholungen übrig sein als erlaubt.',
    },
    {
      language: 'fr',
      edit: 'Modifier',
      save: 'Enregistrer',
      phone: 'Téléphone de la pharmacie',
      authorised: 'Renouvellements autorisés',
      left: 'Renouvellements restants',
      phoneRefused: 'Le téléphone de la pharmacie ne peut contenir que des chiffres, des espaces et + - ( ) / .',
      leftRefused: 'Il ne peut pas rester plus de renouvellements que d’autorisés.',
    },
    {
      language: 'es',
      edit: 'Editar',
      save: 'Guardar',
      phone: 'Teléfono de la farmacia',
      authorised: 'Reposiciones autorizadas',
      left: 'Reposiciones restantes',
      phoneRefused: 'El teléfono de la farmacia solo puede tener dígitos, espacios y + - ( ) / .',
      leftRefused: 'No pueden quedar más reposiciones que las autorizadas.',
    },
  ];

  for (const words of cases) {
    test(`says what to change, in the person's language (${words.language}), and saves nothing`, async ({ page, request }) => {
      const user = await personAt(page, request, words.language);
      const { id } = await createMedication(request, user, { ...METFORMIN, prescription: PRESCRIPTION });
      const before = await savedPrescription(request, user, id);
      await page.reload();

      const form = await edit(page, 'Metformin', words.edit);
      const fields = form.getByTestId('prescription-fields');
      /** Saves, and checks the refusal shows where it can be read and nothing was saved. */
      const saveRefused = async (refusal: string) => {
        await form.getByRole('button', { name: words.save }).click();
        await expect(form.getByRole('alert')).toHaveText(refusal);
        await alertClearOfTopBar(page, form.getByRole('alert'));
        await expect(fields).toBeVisible();
        expect(await savedPrescription(request, user, id)).toEqual(before);
      };
      // A phone number with letters in it.
      await fields.getByLabel(words.phone).fill('call 030 1234567');
      await saveRefused(words.phoneRefused);
      await noSidewaysScroll(page);

      // More refills left than were authorised.
      await fields.getByLabel(words.phone).fill('+49 30 7654321');
      await fields.getByLabel(words.authorised).fill('3');
      await fields.getByLabel(words.left).fill('5');
      await saveRefused(words.leftRefused);

      await noSidewaysScroll(page);
      await page.screenshot({ path: test.info().outputPath(`prescription-refused-${words.language}.png`) });
    });
  }
});

import type { APIRequestContext, Page } from '@playwright/test';
import { expect, registerUser, signIn, test, type TestUser } from './fixtures';
import { createMedication, logDose } from './medsHelpers';

// The care circle against the real server: an owner invites a carer (copying the link, as on
// an instance without e-mail), the carer signs in from the link and accepts, the top bar
// switches person, the escalation settings are saved, and roles decide the buttons.

const auth = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });

async function addPerson(request: APIRequestContext, owner: TestUser, name: string): Promise<number> {
  const response = await request.post('/api/people', { data: { name }, headers: auth(owner) });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { data: { id: number } }).data.id;
}

/** Invites `carer` to `personId` with `role` and accepts through the API; answers the carer's user id. */
async function joinCircle(
  request: APIRequestContext,
  owner: TestUser,
  carer: TestUser,
  personId: number,
  role: 'view' | 'record' | 'manage',
): Promise<number> {
  const invited = await request.post(`/api/people/${personId}/carers`, {
    data: { email: carer.email, role },
    headers: auth(owner),
  });
  expect(invited.status(), await invited.text()).toBe(201);
  const url = ((await invited.json()) as { data: { invite_url: string } }).data.invite_url;
  const token = new URL(url).pathname.split('/').pop() ?? '';
  const accepted = await request.post(`/api/invitations/${token}/accept`, { headers: auth(carer) });
  expect(accepted.status(), await accepted.text()).toBe(200);
  return Number(carer.user.id);
}

/** A daily medication of `personId` at a time of day late enough to still be due today. */
function dailyFor(personId: number, name: string): Record<string, unknown> {
  return { name, unit: 'tablets', frequency: 'daily', default_quantity: 1, person_id: personId, schedule: { times: ['23:50'] } };
}

async function chooseMedicationsOf(page: Page, label: string | RegExp): Promise<void> {
  const switcher = page.getByLabel('Person', { exact: true });
  const option = switcher.locator('option').filter({ hasText: label });
  await switcher.selectOption({ label: (await option.first().textContent()) ?? '' });
}

test.describe('care circle', () => {
  test('the owner invites and copies the link; the carer signs in from it, accepts and sees the person', async ({
    page,
    browser,
    request,
  }) => {
    const owner = await registerUser(request);
    const carer = await registerUser(request);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(page, owner, '/people');

    await expect(page.getByRole('heading', { level: 1 })).toHaveText('People');
    await page.getByLabel('Add a person').fill('Grandpa Jo');
    await page.getByRole('button', { name: 'Add person' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Grandpa Jo was added.' })).toBeVisible();
    await page.getByTestId('own-people').getByRole('link', { name: /Grandpa Jo/ }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Grandpa Jo');

    const carers = page.getByTestId('carers-card');
    await expect(carers).toContainText('No carers yet.');
    await carers.getByLabel('Their e-mail address').fill(carer.email);
    await carers.getByRole('radio', { name: /Record/ }).check();
    await carers.getByRole('button', { name: 'Send invitation' }).click();
    const link = page.getByTestId('invite-link');
    await expect(link).toContainText(`${carer.email} is invited`);
    const inviteUrl = await link.getByLabel('Invitation link').inputValue();
    expect(inviteUrl).toMatch(/\/invite\/[A-Za-z0-9_-]+$/);
    await link.getByRole('button', { name: 'Copy link' }).click();
    await expect(link.getByRole('button', { name: 'Copied!' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(inviteUrl);
    const row = carers.getByTestId('carer-row');
    await expect(row).toContainText(carer.email);
    await expect(row.getByTestId('carer-status')).toHaveText('Invited');

    // The carer opens the link in their own browser, signed out.
    const carerContext = await browser.newContext();
    const carerPage = await carerContext.newPage();
    await carerPage.goto(new URL(inviteUrl).pathname);
    await expect(carerPage.getByRole('heading', { level: 1 })).toHaveText('Invitation to help');
    await carerPage.getByRole('link', { name: 'Sign in' }).click();
    await carerPage.getByLabel('Email').fill(carer.email);
    await carerPage.getByLabel('Password').fill(carer.password);
    await carerPage.getByRole('button', { name: 'Sign In' }).click();

    // Back at the invitation: who invites, for whom, which role.
    await expect(carerPage).toHaveURL(/\/invite\//);
    await expect(carerPage.getByTestId('invitation-text')).toHaveText(
      `${owner.email} invites you to help care for Grandpa Jo.`,
    );
    await expect(carerPage.getByText('Also logs, edits and skips doses.')).toBeVisible();
    await carerPage.getByRole('button', { name: 'Accept' }).click();
    await expect(carerPage).toHaveURL(/\/medications$/);
    await expect(carerPage.getByLabel('Person', { exact: true }).locator('option:checked')).toHaveText(
      `Grandpa Jo (${owner.email})`,
    );
    await carerPage.getByTestId('sidebar').getByRole('link', { name: 'People' }).click();
    await expect(carerPage.getByTestId('cared-people')).toContainText('Grandpa Jo');
    await expect(carerPage.getByTestId('cared-people')).toContainText(`In ${owner.email}'s account · Record`);

    // The link worked once; the owner now sees an active carer.
    await carerPage.goto(new URL(inviteUrl).pathname);
    await expect(carerPage.getByRole('alert')).toContainText('This invitation is not valid any more');
    await carerContext.close();
    await page.reload();
    await expect(page.getByTestId('carer-row').getByTestId('carer-status')).toHaveText('Active');
  });

  test('the top bar switches person: the list, history and the choice after a reload', async ({ page, request }) => {
    const owner = await registerUser(request);
    const grandpa = await addPerson(request, owner, 'Grandpa Jo');
    await createMedication(request, owner, { name: 'Aspirin', unit: 'tablets', frequency: 'as_needed' });
    const digoxin = await createMedication(request, owner, dailyFor(grandpa, 'Digoxin'));
    await logDose(request, owner, digoxin.id, { status: 'taken', quantity: 1, dosage_unit: 'tablets' });
    await signIn(page, owner, '/medications');

    const cards = page.getByTestId('medication-card');
    await expect(cards).toHaveCount(2);
    await expect(cards.filter({ hasText: 'Digoxin' }).getByTestId('medication-person')).toHaveText('Grandpa Jo');
    await expect(cards.filter({ hasText: 'Aspirin' }).getByTestId('medication-person')).toHaveCount(0);

    await chooseMedicationsOf(page, 'Grandpa Jo');
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toContainText('Digoxin');

    // A medication added now is the chosen person's unless the form says otherwise.
    await page.getByRole('button', { name: 'Add Medication' }).click();
    const add = page.getByRole('dialog', { name: 'Add Medication' });
    const whose = add.getByLabel('Person', { exact: true });
    await expect(whose.locator('option:checked')).toHaveText('Grandpa Jo');
    await expect(whose.locator('option')).toHaveText([owner.email, 'Grandpa Jo']);
    await add.getByLabel('Name').fill('Vitamin D');
    await add.getByRole('button', { name: 'Add Medication' }).click();
    await expect(add).toBeHidden();
    await expect(cards).toHaveCount(2);
    await expect(cards.filter({ hasText: 'Vitamin D' })).toBeVisible();

    await page.getByTestId('sidebar').getByRole('link', { name: 'History' }).click();
    await expect(page.getByTestId('history-entry')).toHaveCount(1);
    await expect(page.getByTestId('history-entry')).toContainText('Digoxin');

    // Kept on this device.
    await page.goto('/medications');
    await expect(page.getByLabel('Person', { exact: true }).locator('option:checked')).toHaveText('Grandpa Jo');
    await expect(cards).toHaveCount(2);
    await chooseMedicationsOf(page, owner.email);
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toContainText('Aspirin');
    await chooseMedicationsOf(page, 'Everyone');
    await expect(cards).toHaveCount(3);
  });

  test('missed-dose escalation is saved and shown again', async ({ page, request }) => {
    const owner = await registerUser(request);
    const carer = await registerUser(request);
    const viewer = await registerUser(request);
    const grandpa = await addPerson(request, owner, 'Grandpa Jo');
    const carerId = await joinCircle(request, owner, carer, grandpa, 'record');
    await joinCircle(request, owner, viewer, grandpa, 'view');
    const digoxin = await createMedication(request, owner, dailyFor(grandpa, 'Digoxin'));
    await signIn(page, owner, '/medications');

    const card = page.getByTestId('medication-card').filter({ hasText: 'Digoxin' });
    await card.getByRole('button', { name: 'Edit' }).click();
    const fields = card.getByTestId('escalation-fields');
    await fields.getByRole('switch', { name: /Missed-dose escalation/ }).check();
    await fields.getByLabel('After how many minutes').fill('45');
    // Only carers who can record a dose can be told; the viewer is not offered.
    await expect(fields.getByRole('checkbox')).toHaveCount(1);
    await fields.getByRole('checkbox', { name: new RegExp(carer.email) }).check();
    await card.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(card.getByRole('button', { name: 'Edit' })).toBeVisible();

    const saved = await request.get(`/api/medications/${digoxin.id}`, { headers: auth(owner) });
    expect(((await saved.json()) as { data: { escalation: unknown } }).data.escalation).toEqual({
      after_minutes: 45,
      carers: [carerId],
    });

    await page.reload();
    await card.getByRole('button', { name: 'Edit' }).click();
    await expect(fields.getByRole('switch', { name: /Missed-dose escalation/ })).toBeChecked();
    await expect(fields.getByLabel('After how many minutes')).toHaveValue('45');
    await expect(fields.getByRole('checkbox', { name: new RegExp(carer.email) })).toBeChecked();

    // Turned off, it stays off.
    await fields.getByRole('switch', { name: /Missed-dose escalation/ }).uncheck();
    await card.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(card.getByRole('button', { name: 'Edit' })).toBeVisible();
    await page.reload();
    await card.getByRole('button', { name: 'Edit' }).click();
    await expect(fields.getByRole('switch', { name: /Missed-dose escalation/ })).not.toBeChecked();
  });

  test('a carer with the view role sees no log or edit buttons; the owner sees who gave a dose', async ({
    page,
    browser,
    request,
  }) => {
    const owner = await registerUser(request);
    const viewer = await registerUser(request);
    const recorder = await registerUser(request);
    const grandpa = await addPerson(request, owner, 'Grandpa Jo');
    await joinCircle(request, owner, viewer, grandpa, 'view');
    await joinCircle(request, owner, recorder, grandpa, 'record');
    const digoxin = await createMedication(request, owner, dailyFor(grandpa, 'Digoxin'));
    await logDose(request, recorder, digoxin.id, { status: 'taken', quantity: 1, dosage_unit: 'tablets' });

    await signIn(page, viewer, '/today');
    await chooseMedicationsOf(page, 'Grandpa Jo');
    const today = page.getByTestId('today-medication').filter({ hasText: 'Digoxin' });
    await expect(today).toBeVisible();
    await expect(today.getByRole('button')).toHaveCount(0);
    await expect(page.getByTestId('today-dose').filter({ hasText: 'Digoxin' }).getByRole('button')).toHaveCount(0);

    await page.getByTestId('sidebar').getByRole('link', { name: 'Medications' }).click();
    const card = page.getByTestId('medication-card').filter({ hasText: 'Digoxin' });
    await expect(card).toBeVisible();
    await expect(card.getByRole('button')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Add Medication' })).toHaveCount(0);

    await page.getByTestId('sidebar').getByRole('link', { name: 'History' }).click();
    const entry = page.getByTestId('history-entry');
    await expect(entry).toHaveCount(1);
    await expect(entry.getByRole('button')).toHaveCount(0);
    await expect(entry.getByTestId('given-by')).toHaveText(`given by ${recorder.email}`);

    // The owner's Today names Grandpa on his dose, and History says who gave it.
    const ownerContext = await browser.newContext();
    const ownerPage = await ownerContext.newPage();
    await signIn(ownerPage, owner, '/today');
    await expect(
      ownerPage.getByTestId('today-dose').filter({ hasText: 'Digoxin' }).getByTestId('today-dose-person'),
    ).toHaveText('Grandpa Jo');
    await ownerPage.goto('/history');
    await expect(ownerPage.getByTestId('history-entry').getByTestId('given-by')).toHaveText(
      `given by ${recorder.email}`,
    );
    await ownerContext.close();
  });
});

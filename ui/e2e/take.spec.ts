import { expect, signIn, test } from './fixtures';
import { MAIL_SERVER_URL, waitForMail } from './mail';
import { doseHistory, emailReminders, mailMedication, sendReminderNow, takeLink, verifiedMailUser } from './notifyHelpers';
import { oneTabletLeft } from './medsHelpers';
import { runTimersFor } from './pageClock';

// The reminder e-mails come from the SMTP-enabled server (playwright.config.ts).
test.use({ baseURL: MAIL_SERVER_URL });

test.describe('quick dosage logging', () => {
  test('the link in a reminder e-mail logs the dose once', async ({ page, request }) => {
    const user = await verifiedMailUser(request, 'take');
    await emailReminders(request, user);
    const medicationId = await mailMedication(request, user, {
      name: 'Metformin',
      unit: 'tablets',
      frequency: 'as_needed', // no planned reminder may come first
      default_quantity: 2,
    });
    await sendReminderNow(request, user, medicationId);

    const mail = await waitForMail(user.email, 2);
    expect(mail.text).toContain('Metformin');
    const link = takeLink(mail);
    expect(link.startsWith(`${MAIL_SERVER_URL}/notifications/take/`)).toBe(true);

    // The page's clock runs its timers ahead on demand (below), instead of the test waiting.
    await page.clock.install();
    // Signed in, so the page can go on to /today afterwards.
    await signIn(page, user, '/today');
    await page.goto(link);
    await expect(page.getByTestId('take-medication')).toHaveText('Metformin');
    await expect(page.getByTestId('take-dosage')).toHaveText('2 tablets');
    await expect(page.getByTestId('take-scheduled-time')).not.toBeEmpty();
    await expect(page.getByRole('radio', { name: 'Taken' })).toBeChecked();
    await page.getByRole('radio', { name: 'Skipped' }).check();
    await expect(page.getByRole('button', { name: 'Log as Skipped' })).toBeVisible();
    await page.getByRole('radio', { name: 'Taken' }).check();
    await page.getByRole('button', { name: 'Log as Taken' }).click();

    await expect(page.getByTestId('take-success')).toHaveText('Medication taken logged successfully!');
    await expect(page.getByTestId('take-recorded')).toContainText('Metformin (2 tablets) recorded as taken');
    // The page ends on what happened, whatever its timers do in the next 10 s; signed in,
    // Close goes on to Today.
    await runTimersFor(page, 10_000);
    await expect(page).toHaveURL(/\/notifications\/take\//);
    await page.getByRole('button', { name: 'Close' }).click();
    await expect(page).toHaveURL(/\/today$/);

    const history = await doseHistory(request, user);
    expect(history.filter((entry) => entry.medication_id === medicationId).map((entry) => entry.status)).toEqual([
      'taken',
    ]);

    // The same link again: already logged, nothing to log twice.
    await page.goto(link);
    await expect(page.getByTestId('take-already-logged')).toContainText('This dose was already logged as taken');
    await expect(page.getByRole('button', { name: /^Log as/ })).toHaveCount(0);
    expect(await doseHistory(request, user)).toHaveLength(history.length);
  });

  test('a dose from the link larger than the stock is recorded, and the page stays to say the stock is 0', async ({
    page,
    request,
  }) => {
    const user = await verifiedMailUser(request, 'take-short');
    await emailReminders(request, user);
    const medicationId = await mailMedication(request, user, oneTabletLeft('Prednisone'));
    await sendReminderNow(request, user, medicationId);
    const link = takeLink(await waitForMail(user.email, 2));

    await page.clock.install();
    await page.goto(link);
    await page.getByRole('button', { name: 'Log as Taken' }).click();
    await expect(page.getByTestId('take-success')).toHaveText('Medication taken logged successfully!');
    await expect(page.getByTestId('dose-warning')).toHaveText('The dose was recorded. The stock ran out, so it is now 0.');
    // It stays until the person has read it: 10 s of its timers change nothing.
    await runTimersFor(page, 10_000);
    await expect(page).toHaveURL(/\/notifications\/take\//);
    expect((await doseHistory(request, user)).map((entry) => entry.status)).toEqual(['taken']);
  });

  test('on a phone, signed out, the link logs the dose and the page stays on what was recorded, in the reminder language', async ({
    browser,
    request,
  }) => {
    const user = await verifiedMailUser(request, 'take-phone');
    await emailReminders(request, user);
    const language = await request.put(`${MAIL_SERVER_URL}/api/settings`, {
      headers: { Authorization: `Bearer ${user.token}` },
      data: { language: 'de' },
    });
    expect(language.ok(), await language.text()).toBe(true);
    const medicationId = await mailMedication(request, user, {
      name: 'Metformin',
      unit: 'tablets',
      frequency: 'as_needed',
      default_quantity: 2,
    });
    await sendReminderNow(request, user, medicationId);
    const link = takeLink(await waitForMail(user.email, 2));
    const details = await request.get(`${MAIL_SERVER_URL}/api/notifications/take/${link.split('/take/')[1] ?? ''}`);
    const person = ((await details.json()) as { data: { person_name: string } }).data.person_name;
    expect(person).not.toBe('');

    // A fresh browser with no session, phone-sized, in English by default.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    const page = await phone.newPage();
    await page.clock.install();
    await page.goto(link);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Zeit für Metformin');
    // The snooze buttons are found by the text they show (their accessible name holds it).
    const snooze = page.getByRole('group', { name: 'Erneut erinnern in' });
    for (const text of ['10 Min.', '30 Min.', '60 Min.']) {
      await expect(snooze.getByRole('button', { name: text, exact: true })).toBeVisible();
    }
    await page.getByRole('button', { name: 'Als genommen erfassen' }).click();

    await expect(page.getByTestId('take-success')).toHaveText('Medikament als genommen erfasst!');
    expect((await doseHistory(request, user)).map((entry) => entry.status)).toEqual(['taken']);
    const escaped = person.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await expect(page.getByTestId('take-recorded')).toHaveText(
      new RegExp(`^Metformin \\(2 Tabletten\\) für ${escaped} am .*\\d{1,2}:\\d{2}.* als genommen erfasst\\.$`),
    );
    // It stays: never on to the sign-in page, whatever its timers do in the next 10 s.
    await runTimersFor(page, 10_000);
    await expect(page).toHaveURL(/\/notifications\/take\//);
    await expect(page.getByTestId('take-recorded')).toBeVisible();
    expect(await doseHistory(request, user)).toHaveLength(1);
    await phone.close();
  });

  test('an unknown link shows "Invalid Link" with Go Home', async ({ page }) => {
    await page.goto('/notifications/take/not-a-real-token');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Invalid Link');
    await page.getByRole('button', { name: 'Go Home' }).click();
    // Not signed in: home sends the person to sign in.
    await expect(page).toHaveURL(/\/login$/);
  });
});

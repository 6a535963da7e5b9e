import type { BrowserContext, Page, Worker } from '@playwright/test';
import { expect as baseExpect, test, type TestUser } from './fixtures';
import { MAIL_SERVER_URL, waitForMail } from './mail';
import { registrationId, shownNotifications, workerActivated } from './swHelpers';
import { doseHistory, emailReminders, mailMedication, sendReminderNow, takeLink, verifiedMailUser } from './notifyHelpers';

// The service worker shows and closes notifications on its own time: on a loaded machine
// (the whole suite on two cores) that can take longer than the default 5 s.
const expect = baseExpect.configure({ timeout: 15_000 });

// Take links come from reminder e-mails, so these run against the SMTP-enabled server.
test.use({ baseURL: MAIL_SERVER_URL });

interface Shown {
  title: string;
  body: string;
  tag: string;
  actions: string[];
}

/** A live take link: a reminder for an as-needed medication, sent now by e-mail. */
async function liveReminder(request: Parameters<typeof verifiedMailUser>[0], user: TestUser, mailNumber: number) {
  const medicationId = await mailMedication(request, user, { name: 'Ibuprofen', unit: 'tablets', frequency: 'as_needed' });
  const reminderId = await sendReminderNow(request, user, medicationId);
  const link = takeLink(await waitForMail(user.email, mailNumber));
  return { medicationId, reminderId, link, token: link.split('/notifications/take/')[1] ?? '' };
}

async function activeWorker(page: Page, context: BrowserContext): Promise<Worker> {
  await workerActivated(page);
  return context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
}

/** The notifications on screen, with their action buttons' titles. */
async function shown(page: Page): Promise<Shown[]> {
  return (await shownNotifications(page)).map(({ title, body, tag, actions }) => ({
    title,
    body,
    tag,
    actions: actions.map((a) => a.title),
  }));
}

/** What a person's tap on an action does: a notificationclick in the worker. */
async function click(worker: Worker, tag: string, action: string): Promise<void> {
  await worker.evaluate(
    async ({ tag, action }) => {
      const scope = self as unknown as {
        registration: ServiceWorkerRegistration;
        dispatchEvent: (event: Event) => boolean;
        NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event;
      };
      const [notification] = await scope.registration.getNotifications({ tag });
      if (!notification) throw new Error(`no notification tagged ${tag}`);
      // A dispatched event cannot extend its lifetime (waitUntil refuses); the handler's work
      // has started by then and carries on.
      scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification, action }));
    },
    { tag, action },
  );
}

function reminderPush(origin: string, token: string, tag: string): string {
  return JSON.stringify({
    title: 'Time for Ibuprofen',
    body: '1 tablet at 09:00',
    url: '/today',
    takeUrl: `${origin}/notifications/take/${token}`,
    takeLabel: 'Take',
    snoozeLabel: 'Snooze',
    skipLabel: 'Skip',
    tag,
    token,
    actions: ['take', 'snooze', 'skip'],
  });
}

test.describe('reminders a person can act on', () => {
  test('the take page snoozes, says so when opened again, and still logs the dose', async ({ page, request }) => {
    const user = await verifiedMailUser(request, 'snooze-page');
    await emailReminders(request, user);
    const { link, medicationId } = await liveReminder(request, user, 2);

    await page.goto(link);
    await expect(page.getByTestId('take-medication')).toHaveText('Ibuprofen');
    const snooze = page.getByRole('group', { name: 'Remind me again in' });
    await expect(snooze.getByRole('button')).toHaveText(['10 min', '30 min', '60 min']);
    await snooze.getByRole('button', { name: '30 min', exact: true }).click();
    await expect(page.getByTestId('take-snoozed')).toHaveText(
      /^Snoozed until \d{1,2}:\d{2}( [AP]M)?: the reminder comes again then\.$/,
    );

    // The Scheduled list has the reminder again, 30 minutes on.
    const scheduled = await request.get(`${MAIL_SERVER_URL}/api/notifications?status=scheduled`, {
      headers: { Authorization: `Bearer ${user.token}` },
    });
    const rows = ((await scheduled.json()) as { data: { medication_id: number; reminder_time: string }[] }).data;
    const again = rows.filter((row) => row.medication_id === medicationId);
    expect(again).toHaveLength(1);
    const minutesAway = (Date.parse(again[0]?.reminder_time ?? '') - Date.now()) / 60_000;
    expect(minutesAway).toBeGreaterThan(28);
    expect(minutesAway).toBeLessThan(31);

    // Opened again, the page says what already happened; the dose can still be logged.
    await page.reload();
    await expect(page.getByTestId('take-snoozed')).toBeVisible();
    await page.getByRole('button', { name: 'Log as Taken' }).click();
    await expect(page.getByTestId('take-success')).toHaveText('Medication taken logged successfully!');
    expect((await doseHistory(request, user)).map((entry) => entry.status)).toEqual(['taken']);
  });

  test('notification actions answer without opening a window; withdrawals close the reminder', async ({
    page,
    context,
    request,
    baseURL,
  }) => {
    const origin = baseURL ?? MAIL_SERVER_URL;
    const user = await verifiedMailUser(request, 'sw-actions');
    await emailReminders(request, user);
    await context.grantPermissions(['notifications'], { origin });
    await page.goto('/login');
    const worker = await activeWorker(page, context);
    const cdp = await context.newCDPSession(page);
    const id = await registrationId(cdp, `${origin}/`);
    const push = (data: string) => cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: id, data });

    // Snooze from the notification: the server has the reminder again, the notification says until when.
    const first = await liveReminder(request, user, 2);
    const tag = `reminder-${first.reminderId}`;
    await push(reminderPush(origin, first.token, tag));
    // Chromium shows two buttons (Notification.maxActions): Take and Snooze.
    await expect.poll(() => shown(page)).toEqual([
      { title: 'Time for Ibuprofen', body: '1 tablet at 09:00', tag, actions: ['Take', 'Snooze (10 min)'] },
    ]);
    const pagesBefore = context.pages().length;
    await click(worker, tag, 'snooze');
    await expect.poll(() => shown(page)).toEqual([
      { title: 'Time for Ibuprofen', body: expect.stringMatching(/^Snoozed until \d{2}:\d{2}( [AP]M)?\.$/) as unknown as string, tag, actions: [] },
    ]);
    const details = await request.get(`${MAIL_SERVER_URL}/api/notifications/take/${first.token}`);
    expect(((await details.json()) as { data: { snoozed_until: string | null } }).data.snoozed_until).not.toBeNull();

    // Take from the notification: logged, and the notice replaces the reminder.
    await push(reminderPush(origin, first.token, tag));
    await expect.poll(async () => (await shown(page))[0]?.body).toBe('1 tablet at 09:00');
    await click(worker, tag, 'take');
    await expect.poll(() => shown(page)).toEqual([{ title: 'Time for Ibuprofen', body: 'Logged as taken.', tag, actions: [] }]);
    expect((await doseHistory(request, user)).map((entry) => entry.status)).toEqual(['taken']);
    expect(context.pages()).toHaveLength(pagesBefore);

    // Skip on a second reminder, as a browser that shows three buttons sends it.
    const second = await liveReminder(request, user, 3);
    const secondTag = `reminder-${second.reminderId}`;
    await push(reminderPush(origin, second.token, secondTag));
    await expect.poll(async () => (await shown(page)).find((n) => n.tag === secondTag)?.body).toBe('1 tablet at 09:00');
    await click(worker, secondTag, 'skip');
    await expect
      .poll(async () => (await shown(page)).find((n) => n.tag === secondTag)?.body)
      .toBe('Logged as skipped.');
    expect((await doseHistory(request, user)).map((entry) => entry.status).sort()).toEqual(['skipped', 'taken']);

    // An action that cannot go through (the dose is logged already) claims nothing: no
    // outcome notice and no second entry. (A real tap then opens the take page; an event
    // dispatched by a test may not open windows, so that part is left to the unit tests.)
    await push(reminderPush(origin, second.token, secondTag));
    await expect.poll(async () => (await shown(page)).find((n) => n.tag === secondTag)?.body).toBe('1 tablet at 09:00');
    await click(worker, secondTag, 'take');
    await page.waitForTimeout(500);
    expect((await shown(page)).filter((n) => n.tag === secondTag)).toEqual([]);
    expect(await doseHistory(request, user)).toHaveLength(2);

    // Withdrawals: with another of ours on screen the reminder just closes; the last one
    // leaves a quiet notice saying what happened.
    await page.evaluate(async () => {
      for (const n of await (await navigator.serviceWorker.ready).getNotifications()) n.close();
    });
    await push(reminderPush(origin, 'token-a', 'reminder-901'));
    await push(reminderPush(origin, 'token-b', 'reminder-902'));
    await expect.poll(async () => (await shown(page)).map((n) => n.tag).sort()).toEqual(['reminder-901', 'reminder-902']);
    await push(JSON.stringify({ kind: 'withdraw', tag: 'reminder-901', outcome: 'taken' }));
    await expect.poll(async () => (await shown(page)).map((n) => n.tag)).toEqual(['reminder-902']);
    await push(JSON.stringify({ kind: 'withdraw', tag: 'reminder-902', outcome: 'skipped' }));
    await expect.poll(() => shown(page)).toEqual([
      { title: 'Time for Ibuprofen', body: 'Skipped: logged on another device.', tag: 'reminder-902', actions: [] },
    ]);
  });

  test("the worker's notices follow the app's language", async ({ page, context, baseURL }) => {
    const origin = baseURL ?? MAIL_SERVER_URL;
    await page.addInitScript(() => {
      localStorage.setItem('dosage_app_settings', JSON.stringify({ language: 'de' }));
    });
    await context.grantPermissions(['notifications'], { origin });
    await page.goto('/login');
    await activeWorker(page, context);
    const cdp = await context.newCDPSession(page);
    const id = await registrationId(cdp, `${origin}/`);
    // The page tells the worker its language once the worker is ready; a reload makes sure
    // the worker that answers is the one that heard it.
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await expect
      .poll(async () => {
        await cdp.send('ServiceWorker.deliverPushMessage', {
          origin,
          registrationId: id,
          data: JSON.stringify({ kind: 'withdraw', tag: 'reminder-950', outcome: 'taken' }),
        });
        await page.waitForTimeout(200);
        return (await shown(page)).find((n) => n.tag === 'reminder-950')?.body;
      })
      .toBe('Genommen: auf einem anderen Gerät erfasst.');
  });
});


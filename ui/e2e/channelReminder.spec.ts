import type { APIRequestContext, BrowserContext, Page } from '@playwright/test';
import type { TestUser } from './fixtures';
import { PushDevice, TelegramChat, type BotCall } from './doubles';
import { expect as baseExpect, FIXED_TIME_BOT_TOKEN, test } from './fixedTime';
import { createMedication, freshUserAt } from './medsHelpers';
import { GOOD_TOKEN, NtfyDouble, type Published } from './ntfyDouble';
import { registrationId, shownNotifications, workerActivated } from './swHelpers';

// The service worker and the channel queue work on their own time: give them room on a
// loaded machine.
const expect = baseExpect.configure({ timeout: 15_000 });

// It is 22:30 on 2035-12-31 (e2e/fixedTime.ts). Dose times and "Taken at" read in UTC, the
// zone the account is given below.
test.use({ timezoneId: 'UTC' });

const auth = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });

const ntfy = NtfyDouble.forSpec();

/**
 * Runs a reminder pass now (the debug build's test clock, moved by 0 s); a release build has
 * no test clock, and the dispatcher's own tick (every 30 s) picks the reminder up instead.
 */
async function runDueReminders(request: APIRequestContext): Promise<void> {
  const moved = await request.post('/api/test/clock', { data: { advance_seconds: 0 } });
  if (moved.status() !== 404) expect(moved.ok(), await moved.text()).toBe(true);
}

async function addChannelInBrowser(page: Page, fill: (dialog: ReturnType<Page['getByRole']>) => Promise<void>) {
  await page.getByTestId('channels-card').getByRole('button', { name: 'Add channel' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a channel' });
  await fill(dialog);
  // This medication chooses its methods itself.
  await dialog.getByRole('checkbox', { name: /Use for reminders/ }).uncheck();
  await dialog.getByRole('button', { name: 'Add channel' }).click();
  await expect(dialog.getByTestId('channel-added')).toBeVisible();
  return dialog;
}

async function pushShown(page: Page, tag: string) {
  return (await shownNotifications(page))
    .filter((n) => n.tag === tag)
    .map(({ title, body, actions }) => ({ title, body, actions: actions.map((a) => a.action) }));
}

async function subscribeThisBrowser(page: Page, context: BrowserContext, request: APIRequestContext, user: TestUser, origin: string) {
  await context.grantPermissions(['notifications'], { origin });
  await workerActivated(page);
  const cdp = await context.newCDPSession(page);
  const id = await registrationId(cdp, `${origin}/`);
  // Chromium here cannot reach a vendor's push service (pushManager.subscribe fails), so
  // this browser's subscription is at the local push service, which hands each message it
  // decrypts to this page's service worker (PushDevice.forward).
  const device = await PushDevice.create(request);
  const registered = await request.post('/api/notifications/push/register', {
    headers: auth(user),
    data: { subscription: device.subscription, userAgent: await page.evaluate(() => navigator.userAgent) },
  });
  expect(registered.status(), await registered.text()).toBe(201);
  return { forward: () => device.forward(cdp, origin, id), device };
}

test.describe('one reminder on push, ntfy and Telegram', () => {
  test('Taken pressed on ntfy records the dose, withdraws the push notification and edits the Telegram message', async ({
    page,
    context,
    request,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    // The dose is planned ten minutes ahead, still today (the year's last day).
    const doseTime = '22:40';
    const origin = baseURL ?? '';
    const user = await freshUserAt(page, request, '/settings?section=notifications');
    const zone = await request.put('/api/settings', { headers: auth(user), data: { timezone: 'UTC' } });
    expect(zone.ok(), await zone.text()).toBe(true);
    // Reminders at the time of the dose unless a medication says otherwise.
    const atTheTime = await request.put('/api/notifications/preferences', {
      headers: auth(user),
      data: { default_reminder_minutes_before: 0 },
    });
    expect(atTheTime.ok(), await atTheTime.text()).toBe(true);
    const push = await subscribeThisBrowser(page, context, request, user, origin);

    // ntfy, added in Settings.
    const topic = `pillbox-path-${Date.now().toString(36)}`;
    let dialog = await addChannelInBrowser(page, async (d) => {
      await d.getByLabel('Name').fill('Phone');
      await d.getByLabel('Server address').fill(ntfy.url);
      await d.getByLabel('Topic').fill(topic);
      await d.getByLabel('Access token').fill(GOOD_TOKEN);
    });
    await dialog.getByRole('button', { name: 'Done' }).click();

    // Telegram: the app shows the bot's link; opening it in Telegram sends /start <code>.
    dialog = await addChannelInBrowser(page, async (d) => {
      await d.getByRole('radio', { name: /^Telegram/ }).check();
      await d.getByLabel('Name').fill('Kim on Telegram');
    });
    const link = await dialog.getByTestId('telegram-link').getByRole('link').getAttribute('href');
    expect(link).toMatch(/^https:\/\/t\.me\/pillbox_e2e_bot\?start=[\w-]+$/);
    await dialog.getByRole('button', { name: 'Done' }).click();
    const telegramRow = page.getByTestId('channel-row').filter({ hasText: 'Kim on Telegram' });
    await expect(telegramRow.getByTestId('channel-state')).toHaveText('Waiting for the chat');
    const chat = new TelegramChat(request, 700_000 + Math.floor(Math.random() * 100_000), FIXED_TIME_BOT_TOKEN);
    await chat.says(`/start ${new URL(link ?? '').searchParams.get('start') ?? ''}`);
    await expect.poll(async () => (await chat.calls('sendMessage'))[0]?.text).toMatch(/^Linked/);
    await page.reload();
    await expect(telegramRow.getByTestId('channel-state')).toHaveText('Active');

    // A medication with a dose in ten minutes, whose reminders go by push, ntfy and
    // Telegram, half an hour ahead (chosen in its own notification settings): the reminder
    // is due as soon as that is saved.
    const name = `Ramipril ${Date.now().toString(36)}`;
    const medication = await createMedication(request, user, {
      name,
      unit: 'tablets',
      frequency: 'daily',
      schedule: { times: [doseTime] },
    });
    await page.goto('/medications');
    await page
      .getByTestId('medication-card')
      .filter({ hasText: name })
      .getByRole('button', { name: `Notification settings for ${name}` })
      .click();
    const prefs = page.getByRole('dialog');
    await prefs.getByRole('switch', { name: /Use my default settings/ }).uncheck();
    const methods = prefs.getByRole('group', { name: 'Send reminders by' });
    await methods.getByRole('checkbox', { name: /^Push/ }).check();
    await methods.getByRole('checkbox', { name: 'Phone (ntfy)' }).check();
    await methods.getByRole('checkbox', { name: 'Kim on Telegram (Telegram)' }).check();
    await prefs.getByLabel('Remind me').selectOption('30');
    await prefs.getByRole('button', { name: /^Save/ }).click();
    await expect(prefs).toBeHidden();
    const saved = await request.get(`/api/notifications/medications/${medication.id}/preferences`, { headers: auth(user) });
    const channels = ((await (await request.get('/api/channels', { headers: auth(user) })).json()) as {
      data: { name: string; method: string }[];
    }).data;
    const methodOf = (channelName: string) => channels.find((c) => c.name === channelName)?.method;
    expect(((await saved.json()) as { data: { delivery_methods: string[] } }).data.delivery_methods).toEqual([
      'push',
      methodOf('Phone'),
      methodOf('Kim on Telegram'),
    ]);

    await page.goto('/today');
    const todayDose = page.getByTestId('today-dose').filter({ hasText: name });
    await expect(todayDose.getByTestId('today-dose-status')).toHaveText('Upcoming');

    // The reminder comes due.
    await runDueReminders(request);

    // Push: the browser shows it with its actions.
    let delivered: string[] = [];
    await expect
      .poll(
        async () => {
          delivered = await push.forward();
          return delivered.length;
        },
        { timeout: 45_000 },
      )
      .toBe(1);
    const tag = (JSON.parse(delivered[0] ?? '{}') as { tag?: string }).tag ?? '';
    expect(tag).toMatch(/^reminder-\d+$/);
    await expect.poll(() => pushShown(page, tag)).toEqual([
      { title: `Time for ${name}`, body: expect.any(String) as unknown as string, actions: ['take', 'snooze'] },
    ]);

    // ntfy: Taken / Snooze / Skip as http actions that post the take link and clear.
    await expect.poll(() => ntfy.published.filter((m) => m.topic === topic).length).toBe(1);
    const reminder = ntfy.published.find((m) => m.topic === topic) as Published;
    expect(reminder.title).toBe(`Time for ${name}`);
    expect(reminder.actions.map((a) => [a.action, a.label])).toEqual([
      ['http', 'Taken'],
      ['http', 'Snooze 10 min'],
      ['http', 'Skip'],
      ['view', 'Open Pillbox'],
    ]);
    for (const action of reminder.actions.filter((a) => a.action === 'http')) {
      expect(action.url).toMatch(/\/api\/notifications\/take\/[\w-]+$/);
      expect(action.clear).toBe(true);
    }
    expect(JSON.parse(reminder.actions[0]?.body ?? '{}')).toEqual({ status: 'taken' });

    // Telegram: a message with the same three buttons.
    await expect.poll(async () => (await chat.calls('sendMessage')).length).toBe(2);
    const onTelegram = (await chat.calls('sendMessage'))[1] as BotCall;
    expect(onTelegram.text).toMatch(new RegExp(`^Time for ${name}`));
    expect(onTelegram.reply_markup?.inline_keyboard.flat().map((b) => b.text)).toEqual(['Taken', 'Snooze 10 min', 'Skip']);

    // The person presses Taken on the ntfy notification.
    const pressed = await ntfy.press(reminder, 'Taken');
    expect(pressed.status, JSON.stringify(pressed.body)).toBeLessThan(300);

    // Today shows the dose taken.
    await page.reload();
    await expect(todayDose.getByTestId('today-dose-status')).toHaveText('Taken');

    // The push notification is withdrawn: the reminder with its buttons is gone, and the
    // service worker leaves only a quiet word of what happened.
    await expect
      .poll(async () => {
        await push.forward();
        return pushShown(page, tag);
      })
      .toEqual([{ title: `Time for ${name}`, body: 'Taken: logged on another device.', actions: [] }]);

    // ntfy: the final message replaces the reminder under the same sequence id.
    await expect.poll(() => ntfy.published.filter((m) => m.topic === topic).length).toBe(2);
    const last = ntfy.published.filter((m) => m.topic === topic)[1] as Published;
    expect(last.sequence_id).toBe(reminder.sequence_id);
    // The account has no name: the message (on a topic anyone may read) names no address.
    expect(last.message).toMatch(/^✓ Taken at \d{1,2}:\d{2}( [AP]M)?$/);
    expect(last.actions.filter((a) => a.action === 'http')).toEqual([]);

    // Telegram: the same message edited to say it was taken, with no buttons left.
    await expect.poll(async () => (await chat.calls('editMessageText')).length).toBe(1);
    const edit = (await chat.calls('editMessageText'))[0] as BotCall;
    expect(edit.message_id).toBe(onTelegram.message_id);
    expect(edit.text).toContain('✓ Taken at ');
    expect(edit.reply_markup).toBeUndefined();

    // Exactly one reminder went out on each.
    expect((await chat.calls('sendMessage')).length).toBe(2);
    expect((await push.device.received()).received.map((m) => (JSON.parse(m) as { kind?: string }).kind ?? 'reminder')).toEqual([
      'reminder',
      'withdraw',
    ]);
  });
});

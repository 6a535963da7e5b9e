import { expect, test } from './fixtures';
import { freshUserAt } from './medsHelpers';
import { GOOD_TOKEN, NtfyDouble } from './ntfyDouble';

const ntfy = NtfyDouble.forSpec();

test.describe('channels', () => {
  test('adds an ntfy channel, sends a test the ntfy server receives, and shows a wrong token refused', async ({
    page,
    request,
  }) => {
    const user = await freshUserAt(page, request, '/settings?section=notifications');
    const auth = { Authorization: `Bearer ${user.token}` };
    const topic = `pillbox-e2e-${Date.now().toString(36)}`;
    const card = page.getByTestId('channels-card');
    await expect(card.getByRole('heading', { name: 'Channels' })).toBeVisible();
    await expect(card).toContainText('You have no channels yet.');

    // Add ntfy with its access token; "Use for reminders" is on by default.
    await card.getByRole('button', { name: 'Add channel' }).click();
    let dialog = page.getByRole('dialog', { name: 'Add a channel' });
    await expect(dialog.getByRole('radio', { name: /^ntfy/ })).toBeChecked();
    await expect(dialog).toContainText('The topic you subscribed to in the ntfy app.');
    await dialog.getByLabel('Name').fill('Phone');
    await dialog.getByLabel('Server address').fill(ntfy.url);
    await dialog.getByLabel('Topic').fill(topic);
    await dialog.getByLabel('Access token').fill(GOOD_TOKEN);
    await expect(dialog.getByRole('checkbox', { name: /Use for reminders/ })).toBeChecked();
    await dialog.getByRole('button', { name: 'Add channel' }).click();
    await expect(dialog.getByTestId('channel-added')).toHaveText('Phone (ntfy) added: reminders now go to it too.');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(dialog).toBeHidden();

    const listed = await request.get('/api/channels', { headers: auth });
    const [channel] = ((await listed.json()) as { data: { id: number; method: string; secret_set: boolean }[] }).data;
    expect(channel?.secret_set).toBe(true);
    const prefs = await request.get('/api/notifications/preferences', { headers: auth });
    expect(((await prefs.json()) as { data: { default_delivery_methods: string[] } }).data.default_delivery_methods).toEqual([
      'push',
      channel?.method,
    ]);

    // A test: the ntfy server gets it with the token, and the page shows what ntfy answered.
    const phone = card.getByTestId('channel-row').filter({ hasText: 'Phone' });
    await expect(phone.getByTestId('channel-state')).toHaveText('Active');
    await phone.getByRole('button', { name: 'Send test' }).click();
    await expect(phone.getByTestId('channel-test-result')).toHaveText(
      'The test reached Phone. Its answer: ntfy took the test message',
    );
    expect(ntfy.published).toHaveLength(1);
    const [sent] = ntfy.published;
    expect(sent?.topic).toBe(topic);
    expect(sent?.authorization).toBe(`Bearer ${GOOD_TOKEN}`);
    expect(sent?.title).toBeTruthy();
    expect(sent?.sequence_id).toBeTruthy();
    await expect(phone.getByTestId('channel-last-result')).toContainText('ntfy took the test message');

    // The same server with a token it does not know: ntfy's 401 is said on screen.
    await card.getByRole('button', { name: 'Add channel' }).click();
    dialog = page.getByRole('dialog', { name: 'Add a channel' });
    await dialog.getByLabel('Name').fill('Old token');
    await dialog.getByLabel('Server address').fill(ntfy.url);
    await dialog.getByLabel('Topic').fill(topic);
    await dialog.getByLabel('Access token').fill('tk_revokedlongago');
    await dialog.getByRole('checkbox', { name: /Use for reminders/ }).uncheck();
    await dialog.getByRole('button', { name: 'Add channel' }).click();
    await expect(dialog.getByTestId('channel-added')).toHaveText('Old token (ntfy) added.');
    await dialog.getByRole('button', { name: 'Done' }).click();

    const old = card.getByTestId('channel-row').filter({ hasText: 'Old token' });
    await old.getByRole('button', { name: 'Send test' }).click();
    const refused = old.getByTestId('channel-test-result');
    await expect(refused).toContainText('401');
    await expect(refused).toHaveText(
      'The test did not reach Old token. Its answer: ntfy answered 401: the access token was refused',
    );
    expect(ntfy.refused).toEqual(['Bearer tk_revokedlongago']);
    expect(ntfy.published).toHaveLength(1);

    // Where delivery methods are chosen, the channels are listed next to push and e-mail.
    await page.goto('/notifications?tab=settings');
    await page.getByTestId('general-card').getByRole('button', { name: 'Configure' }).click();
    const prefsDialog = page.getByRole('dialog', { name: 'Notification Settings' });
    const methods = prefsDialog.getByRole('group', { name: 'Send reminders by' });
    await expect(methods.getByRole('checkbox', { name: 'Phone (ntfy)' })).toBeChecked();
    await expect(methods.getByRole('checkbox', { name: 'Old token (ntfy)' })).not.toBeChecked();
    await prefsDialog.getByRole('button', { name: 'Cancel' }).click();

    // History names each test's channel and says what it answered.
    await page.getByRole('tab', { name: 'History' }).click();
    const rows = page.getByTestId('delivery-row');
    const refusedRow = rows.filter({ has: page.getByTestId('delivery-channel').getByText('Old token (ntfy)', { exact: true }) });
    await expect(refusedRow.getByTestId('delivery-error')).toHaveText(
      'Old token did not take it: ntfy answered 401: the access token was refused',
    );
    const sentRow = rows.filter({ has: page.getByTestId('delivery-channel').getByText('Phone (ntfy)', { exact: true }) });
    await expect(sentRow.getByTestId('delivery-result')).toHaveText('Sent');
  });

  test('an address the server may not send to is refused at its field', async ({ page, request }) => {
    await freshUserAt(page, request, '/settings?section=notifications');
    const card = page.getByTestId('channels-card');
    await card.getByRole('button', { name: 'Add channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a channel' });
    // 127.0.0.2 is loopback too, but only 127.0.0.1 is allowed on this server.
    await dialog.getByLabel('Server address').fill('http://127.0.0.2:9/');
    await dialog.getByLabel('Topic').fill('pills');
    await dialog.getByLabel('Access token').fill(GOOD_TOKEN);
    await dialog.getByRole('button', { name: 'Add channel' }).click();
    await expect(dialog.getByTestId('channel-error-server_url')).toContainText('channels.allow_networks');
    await expect(dialog.getByLabel('Server address')).toHaveAttribute('aria-invalid', 'true');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(card).toContainText('You have no channels yet.');
  });
});

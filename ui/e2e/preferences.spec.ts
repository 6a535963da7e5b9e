import { expect, registerUser, signIn, test } from './fixtures';
import { createMedication, freshUserAt } from './medsHelpers';

test.describe('reminder preferences', () => {
  test('one medication keeps its own lead and delivery methods', async ({ page, request }) => {
    const user = await registerUser(request);
    await createMedication(request, user, { name: 'Aspirin', unit: 'mg', frequency: 'daily', default_quantity: 100 });
    await signIn(page, user, '/medications');

    const card = page.getByTestId('medication-card').filter({ hasText: 'Aspirin' });
    const open = async () => {
      await card.getByRole('button', { name: 'Notification settings for Aspirin' }).click();
      const dialog = page.getByRole('dialog', { name: 'Notification Settings for Aspirin' });
      await expect(dialog.getByRole('button', { name: 'Save Settings' })).toBeEnabled();
      return dialog;
    };

    let dialog = await open();
    const useDefaults = dialog.getByRole('switch', { name: /Use my default settings/ });
    // A new medication follows the defaults until it gets its own.
    await expect(useDefaults).toBeChecked();
    await useDefaults.uncheck();
    await dialog.getByLabel('Remind me').selectOption('30');
    await expect(dialog.getByLabel('Push notification', { exact: true })).toBeChecked();
    await dialog.getByLabel('E-mail', { exact: true }).check();
    await dialog.getByRole('button', { name: 'Save Settings' }).click();
    await expect(dialog.getByRole('status')).toHaveText('Preferences saved successfully!');
    // It closes by itself 1.5 s later.
    await expect(dialog).toBeHidden({ timeout: 4000 });

    await page.reload();
    dialog = await open();
    await expect(dialog.getByRole('switch', { name: /Use my default settings/ })).not.toBeChecked();
    await expect(dialog.getByLabel('Remind me')).toHaveValue('30');
    await expect(dialog.getByLabel('Push notification', { exact: true })).toBeChecked();
    await expect(dialog.getByLabel('E-mail', { exact: true })).toBeChecked();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
  });

  test('the Settings page keeps a new daily reminder time', async ({ page, request }) => {
    await freshUserAt(page, request, '/settings?section=notifications');
    await expect(page.getByRole('heading', { level: 2, name: 'Notifications' })).toBeVisible();
    const time = page.getByLabel('Daily reminder time');
    await expect(time).toHaveValue('09:00');
    await time.fill('07:45');
    await page.getByRole('button', { name: 'Save Notification Settings' }).click();
    const saved = page.getByRole('status').filter({ hasText: 'Notification settings updated successfully' });
    await expect(saved).toBeVisible();
    // Settings messages last 3 seconds.
    await expect(saved).toBeHidden({ timeout: 5000 });

    await page.reload();
    await expect(page.getByLabel('Daily reminder time')).toHaveValue('07:45');
  });
});

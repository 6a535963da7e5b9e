import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { freshUserAt } from './medsHelpers';
import { NtfyDouble } from './ntfyDouble';

// Settings → Notifications → Channels as a German-speaking person sees it on a phone.
test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

// Any local server that answers the webhook with a 404 serves for a test that fails.
const refusing = NtfyDouble.forSpec();

/** The page scrolls only up and down: nothing sticks out to the right. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
  expect(widths.page, 'the page is wider than the phone').toBeLessThanOrEqual(widths.screen);
}

/** Every button and link in `scope` is inside the screen's width and big enough to tap. */
async function expectTappable(scope: Locator): Promise<void> {
  const controls = scope.locator('button:visible, a:visible');
  const count = await controls.count();
  expect(count).toBeGreaterThan(0);
  for (let i = 0; i < count; i += 1) {
    const control = controls.nth(i);
    const box = await control.boundingBox();
    const name = (await control.textContent()) ?? (await control.getAttribute('aria-label'));
    expect(box, `${name} has no box`).not.toBeNull();
    if (!box) continue;
    expect(box.height, `${name} is too small to tap`).toBeGreaterThanOrEqual(40);
    expect(box.x, `${name} starts off the screen`).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, `${name} ends off the screen`).toBeLessThanOrEqual(390);
  }
}

test.describe('channels on a phone, in German', () => {
  test('the form speaks German and fits; a webhook secret is shown once with a copy button; a Telegram chat waits for its link', async ({
    page,
    request,
  }) => {
    test.setTimeout(60_000);
    const user = await freshUserAt(page, request, '/login');
    const german = await request.put('/api/settings', {
      headers: { Authorization: `Bearer ${user.token}` },
      data: { language: 'de' },
    });
    expect(german.ok(), await german.text()).toBe(true);
    await page.goto('/settings?section=notifications');

    const card = page.getByTestId('channels-card');
    await expect(card.getByRole('heading', { name: 'Kanäle' })).toBeVisible();
    await expect(card).toContainText('Sie haben noch keine Kanäle.');
    await expectNoSidewaysScroll(page);

    // The add form: German labels and hints for each kind, and its buttons on the screen.
    await card.getByRole('button', { name: 'Kanal hinzufügen' }).click();
    let dialog = page.getByRole('dialog', { name: 'Einen Kanal hinzufügen' });
    await expect(dialog.getByRole('group', { name: 'Art des Kanals' })).toBeVisible();
    await expect(dialog.getByRole('radio', { name: /^ntfy/ })).toBeChecked();
    await expect(dialog.getByLabel('Serveradresse')).toBeVisible();
    await expect(dialog.getByLabel('Thema')).toBeVisible();
    await expect(dialog).toContainText('Das Thema, das Sie in der ntfy-App abonniert haben.');
    await expect(dialog).toContainText('Ein Zugriffstoken von der Kontoseite (Account) in ntfy (tk_…).');
    await expect(dialog).toContainText('Wie Pillbox ihn nennt, z. B. „Telefon“. Leer gelassen, heißt er wie seine Art, z. B. „ntfy“.');
    await dialog.getByRole('radio', { name: /^Gotify/ }).check();
    await expect(dialog.getByLabel('Anwendungstoken')).toBeVisible();
    await expect(dialog).toContainText('Ein Anwendungstoken von der Seite Apps in Gotify.');
    await dialog.getByRole('radio', { name: /^Webhook/ }).check();
    // The six dose events, then refills and expiring batches (issue 29), each named in German.
    const events = dialog.getByRole('group', { name: 'Ereignisse' }).getByRole('checkbox');
    await expect(events).toHaveCount(9);
    await expect(dialog.getByRole('checkbox', { name: 'Eine Nachbestellung ist fällig' })).toBeVisible();
    await expect(dialog.getByRole('checkbox', { name: 'Eine Packung läuft bald ab' })).toBeVisible();
    await expect(dialog).toContainText('Wählen Sie die Ereignisse, die diese Adresse empfängt.');
    for (const english of ['Server address', 'Topic', 'Access token', 'Events', 'Use for reminders', 'Cancel']) {
      await expect(dialog).not.toContainText(english);
    }
    await expectNoSidewaysScroll(page);
    const add = dialog.getByRole('button', { name: 'Kanal hinzufügen' });
    await add.scrollIntoViewIfNeeded();
    await expect(add).toBeInViewport();
    await expectTappable(dialog);

    // A webhook with a long address: its secret is shown once, with a copy button.
    await dialog.getByLabel('Name').fill('Heimautomatisierung');
    await dialog.getByRole('textbox', { name: 'Adresse', exact: true }).fill(`${refusing.url}/api/webhook/pillbox-erinnerungen-fuer-das-ganze-haus-0123456789`);
    await add.click();
    await expect(dialog.getByTestId('channel-added')).toHaveText(
      'Heimautomatisierung (Webhook) hinzugefügt: Erinnerungen gehen jetzt auch dorthin.',
    );
    const secretField = dialog.getByLabel('Signaturschlüssel');
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await expect(dialog.getByTestId('channel-secret')).toContainText(
      'Kopieren Sie den Schlüssel jetzt in den empfangenden Dienst: Er wird nicht noch einmal angezeigt.',
    );
    const copy = dialog.getByRole('button', { name: 'Schlüssel kopieren' });
    await expect(copy).toBeInViewport();
    await expectTappable(dialog);
    await expectNoSidewaysScroll(page);
    await dialog.getByRole('button', { name: 'Fertig' }).click();
    await expect(dialog).toBeHidden();
    expect(await page.locator('body').textContent()).not.toContain(secret);

    // Its test fails (the address answers 404): the answer is said in the row, which fits.
    const hook = card.getByTestId('channel-row').filter({ hasText: 'Heimautomatisierung' });
    await hook.getByRole('button', { name: 'Test senden' }).click();
    await expect(hook.getByTestId('channel-test-result')).toContainText('Der Test hat Heimautomatisierung nicht erreicht. Antwort:');
    await expect(hook.getByTestId('channel-test-result')).toContainText('404');
    await expectNoSidewaysScroll(page);
    await expectTappable(hook);
    // Its four actions sit two by two, not one under another.
    const actions = hook.getByRole('button', { name: /^(Test senden|Umbenennen|Einstellungen ändern|Löschen)$/ });
    await expect(actions).toHaveCount(4);
    const rows = new Set<number>();
    for (const box of await Promise.all((await actions.all()).map((a) => a.boundingBox()))) rows.add(Math.round(box?.y ?? -1));
    expect(rows.size).toBe(2);

    // Telegram: the link to open, and a chat that is not linked yet takes no reminders.
    await card.getByRole('button', { name: 'Kanal hinzufügen' }).click();
    dialog = page.getByRole('dialog', { name: 'Einen Kanal hinzufügen' });
    await dialog.getByRole('radio', { name: /^Telegram/ }).check();
    await dialog.getByRole('button', { name: 'Kanal hinzufügen' }).click();
    await expect(dialog.getByTestId('channel-added')).toHaveText(
      'Telegram hinzugefügt: Erinnerungen gehen auch dorthin, sobald der Chat verbunden ist.',
    );
    const open = dialog.getByTestId('telegram-link').getByRole('link', { name: 'In Telegram öffnen' });
    await expect(open).toHaveAttribute('href', /^https:\/\/t\.me\/\w+\?start=/);
    // A link that looks like a button: not underlined like running text.
    await expect(open).toHaveCSS('text-decoration-line', 'none');
    await expect(dialog.getByRole('button', { name: 'Link kopieren' })).toBeInViewport();
    await expectTappable(dialog);
    await dialog.getByRole('button', { name: 'Fertig' }).click();
    const telegram = card.getByTestId('channel-row').filter({ hasText: 'Telegram' });
    await expect(telegram.getByTestId('channel-state')).toHaveText('Wartet auf den Chat');
    await expect(telegram.getByRole('button', { name: 'Link anzeigen' })).toBeVisible();
    await expectNoSidewaysScroll(page);
    await expectTappable(card);
  });
});

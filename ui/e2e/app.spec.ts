import { expect, serverVersion, test } from './fixtures';
import { runTimersFor } from './pageClock';

test.describe('signed out', () => {
  test('visiting / lands on /login', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome back');
    await expect(page.getByTestId('sidebar')).toHaveCount(0);
  });

  test("the first paint is the app's icon, from the page alone, and it goes once the app draws", async ({ page }) => {
    // While the app's code is still on its way (here: never arrives), the page shows its icon.
    await page.route('**/assets/*.js', (route) => route.abort());
    await page.goto('/login');
    await expect(page.locator('#splash svg')).toBeVisible();
    await expect(page.locator('#root')).toBeEmpty();
    await page.unroute('**/assets/*.js');
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome back');
    await expect(page.locator('#splash')).toBeHidden();
  });

  test('the sign-in page appears whole: it waits for whether sign-ups are open, and nothing on it moves', async ({
    page,
  }) => {
    await page.addInitScript(() => {
      const shifts: number[] = [];
      Object.assign(window, { pillboxShifts: shifts });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) shifts.push((entry as PerformanceEntry & { value: number }).value);
      }).observe({ type: 'layout-shift', buffered: true });
    });
    // The answer that used to come last, after the form, and push it up.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/auth/registration', async (route) => {
      await released;
      await route.continue();
    });
    const screenCode = page.waitForResponse(/\/assets\/LoginScreen-[^/]*\.js$/);
    const version = page.waitForResponse('**/api/version');
    await page.goto('/login');
    await Promise.all([screenCode, version]);
    // The page's code and its other answers are in; it waits, and after 400 ms says so.
    await expect(page.getByRole('status')).toContainText('Loading...');
    await expect(page.getByLabel('Email')).toHaveCount(0);

    release();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome back');
    await expect(page.getByRole('link', { name: 'Create an account' })).toBeVisible();
    await expect(page.getByTestId('version-label')).not.toHaveText('dev');
    // Layout shifts are reported after the frame that made them.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await page.evaluate(() => (window as unknown as { pillboxShifts: number[] }).pillboxShifts)).toEqual([]);
  });

  test('the login footer shows the server version', async ({ page, request }) => {
    const version = await serverVersion(request);
    await page.goto('/login');
    await expect(page.getByTestId('version-label')).toHaveText(version);
  });

  test('loads without CSP violations or console errors', async ({ page }) => {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') {
        problems.push(`${message.type()}: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    const response = await page.goto('/login');
    expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome back');
    await page.evaluate(() => navigator.serviceWorker.ready);
    // Reload under the service worker's control, so it serves the page too.
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome back');
    await page.waitForLoadState('networkidle');
    expect(problems).toEqual([]);
  });
});

test.describe('PWA', () => {
  test('registers the service worker at /sw.js with scope /', async ({ page, baseURL }) => {
    await page.goto('/login');
    const registration = await page.evaluate(async () => {
      const ready = await navigator.serviceWorker.ready;
      return { scope: ready.scope, script: ready.active?.scriptURL ?? null };
    });
    expect(registration.scope).toBe(`${baseURL}/`);
    expect(registration.script).toBe(`${baseURL}/sw.js`);
  });

  test('the manifest is linked and has the icons', async ({ page, request }) => {
    await page.goto('/login');
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBe('/manifest.webmanifest');
    const response = await request.get(href ?? '');
    expect(response.ok()).toBe(true);
    const manifest = (await response.json()) as {
      name: string;
      short_name: string;
      start_url: string;
      scope: string;
      display: string;
      theme_color: string;
      background_color: string;
      icons: { src: string; sizes: string; type: string; purpose: string }[];
    };
    expect(manifest).toMatchObject({
      name: 'Pillbox',
      short_name: 'Pillbox',
      start_url: '/',
      scope: '/',
      display: 'standalone',
      theme_color: '#1f2937',
      background_color: '#ffffff',
    });
    const icons = manifest.icons.map(({ sizes, purpose, type }) => `${sizes} ${purpose} ${type}`);
    expect(icons).toEqual(
      expect.arrayContaining([
        '192x192 any image/png',
        '512x512 any image/png',
        '512x512 maskable image/png',
      ]),
    );
    for (const icon of manifest.icons) {
      const image = await request.get(icon.src);
      expect(image.ok(), icon.src).toBe(true);
      expect(image.headers()['content-type']).toBe('image/png');
    }
  });

  test('navigations under the service worker still reach the API', async ({ page, request }) => {
    await page.goto('/login');
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
    const apiPage = await page.goto('/api/version');
    expect(apiPage?.headers()['content-type']).toContain('application/json');
    expect(await apiPage?.json()).toEqual(await (await request.get('/api/version')).json());
  });
});

test.describe('theme', () => {
  test('a dark colour scheme gives the dark class and theme colour', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto('/login');
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', '#1f2937');

    // "system" follows the OS live.
    await page.emulateMedia({ colorScheme: 'light' });
    await expect(page.locator('html')).toHaveClass(/\blight\b/);
    await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', '#ffffff');
  });

  test('a stored explicit theme wins over the OS preference', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.addInitScript(() => {
      localStorage.setItem('dosage_app_settings', JSON.stringify({ theme: 'light' }));
    });
    await page.goto('/login');
    await expect(page.locator('html')).toHaveClass(/\blight\b/);
    await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', '#ffffff');
  });

  test('the stored language translates the page and sets <html lang>', async ({ page }) => {
    await page.addInitScript(() => {
      localStorage.setItem('dosage_app_settings', JSON.stringify({ language: 'fr' }));
    });
    await page.goto('/login');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Bon retour');
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  });
});

test.describe('install banner', () => {
  test('appears about 3 s after beforeinstallprompt; Not now hides it and stores the time', async ({
    page,
  }) => {
    // The page's clock runs the first 1.5 s at once (below).
    await page.clock.install();
    await page.goto('/login');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome back');
    const banner = page.getByRole('region', { name: 'Install Pillbox' });

    const firedAt = await page.evaluate(() => {
      const event = new Event('beforeinstallprompt', { cancelable: true });
      Object.assign(event, {
        prompt: () => Promise.resolve(),
        userChoice: Promise.resolve({ outcome: 'dismissed', platform: 'web' }),
      });
      window.dispatchEvent(event);
      return Date.now();
    });
    // Every timer of the next 1.5 s has run and been rendered: still no banner.
    await runTimersFor(page, 1_500);
    await expect(banner).toBeHidden();

    await expect(banner).toBeVisible({ timeout: 5_000 });
    const shownAfter = (await page.evaluate(() => Date.now())) - firedAt;
    expect(shownAfter).toBeGreaterThanOrEqual(2900);
    await expect(banner).toContainText(
      'Install our app for a better experience with offline access and quick access from your home screen',
    );
    await expect(banner.getByRole('button', { name: 'Install App' })).toBeVisible();
    await expect(banner.getByRole('button', { name: 'Close' })).toBeVisible();

    await banner.getByRole('button', { name: 'Not now' }).click();
    await expect(banner).toBeHidden();
    const dismissedAt = await page.evaluate(() => Number(localStorage.getItem('installPromptDismissed')));
    expect(Math.abs(Date.now() - dismissedAt)).toBeLessThan(60_000);
  });
});

import { expect, test } from '@playwright/test';

// The API reference page (/api/docs) is the server's, with Redoc's bundle embedded in the
// binary: it must render from the server alone, with every other host unreachable.
test.describe('API reference', () => {
  test('renders the document with no network but the server', async ({ page, baseURL }) => {
    const origin = new URL(baseURL ?? '').origin;
    const elsewhere: string[] = [];
    await page.route(
      (url) => url.origin !== origin,
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort('internetdisconnected');
      },
    );
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));

    const script = page.waitForResponse((response) => response.url().endsWith('/api-docs/redoc.standalone.js'));
    await page.goto('/api/docs');
    const bundle = await script;
    expect(bundle.status()).toBe(200);
    expect(bundle.headers()['content-type']).toMatch(/javascript/);

    await expect(page.getByRole('heading', { level: 1, name: /Pillbox API/ })).toBeVisible({ timeout: 15_000 });
    // An operation of the document: GET /api/version, "The server's version."
    await expect(page.getByRole('heading', { name: "The server's version." })).toBeVisible();
    await expect(page.getByText('/api/version').first()).toBeAttached();
    expect(failures).toEqual([]);
    // Nothing the page needs comes from elsewhere. Redoc's footer tries its maker's logo on a
    // CDN (no option turns it off); the page's CSP blocks it and the footer drops the image.
    expect(elsewhere.filter((url) => url !== 'https://cdn.redoc.ly/redoc/logo-mini.svg')).toEqual([]);
  });

  test('keeps the bundle out of the service worker precache', async ({ request }) => {
    const worker = await request.get('/sw.js');
    expect(worker.ok()).toBe(true);
    expect(await worker.text()).not.toContain('api-docs');
  });
});

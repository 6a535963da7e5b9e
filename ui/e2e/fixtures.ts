import { test as base, expect, type APIRequestContext, type Page } from '@playwright/test';

export interface TestUser {
  email: string;
  password: string;
  token: string;
  user: { id: number | string; email: string };
}

let counter = 0;

/** Registers a fresh account through the API (POST /api/auth/register). */
export async function registerUser(request: APIRequestContext): Promise<TestUser> {
  counter += 1;
  const email = `e2e-${Date.now().toString(36)}-${counter}@example.com`;
  const password = 'correct-horse-battery';
  const response = await request.post('/api/auth/register', { data: { email, password } });
  expect(response.status(), await response.text()).toBe(201);
  const body = (await response.json()) as {
    success: boolean;
    data: { token: string; user: TestUser['user'] };
  };
  expect(body.success).toBe(true);
  return { email, password, token: body.data.token, user: body.data.user };
}

/**
 * Stores a session of its own for this page the way the app does, and opens `path`. Each page
 * gets a fresh token (from `refresh`), so a page that signs out ends only its own session,
 * never `user.token` that tests call the API with.
 *
 * The session is stored from a file of the app's origin that runs no script (the icon), not
 * from the sign-in page: the app started there, with no session, asks the server whether a
 * proxy signed someone in and, told no, clears the stored session, which could be after the
 * token was put there (the page then opened signed out, now and then).
 */
export async function signIn(page: Page, user: TestUser, path = '/'): Promise<void> {
  const response = await page.request.post('/api/auth/refresh', { data: { token: user.token } });
  expect(response.status(), await response.text()).toBe(200);
  const session = (await response.json()) as { data: { token: string } };
  await page.goto('/favicon.svg');
  await page.evaluate(({ token, record }) => {
    localStorage.setItem('token', token);
    localStorage.setItem('user', JSON.stringify(record));
  }, { token: session.data.token, record: user.user });
  await page.goto(path);
}

export async function serverVersion(request: APIRequestContext): Promise<string> {
  const response = await request.get('/api/version');
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as { data: { version: string } };
  return body.data.version;
}

export const test = base.extend<object, { account: TestUser }>({
  // One account per worker: enough for the shell tests; each page signs in with a session of
  // its own (see signIn), so signing out there leaves the account's token working.
  account: [
    async ({ playwright }, use, workerInfo) => {
      const request = await playwright.request.newContext({
        baseURL: workerInfo.project.use.baseURL,
      });
      await use(await registerUser(request));
      await request.dispose();
    },
    { scope: 'worker' },
  ],
});

export { expect };

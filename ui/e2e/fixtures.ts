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

/** Opens the app once, stores the session the way the app does, and opens `path`. */
export async function signIn(page: Page, user: TestUser, path = '/'): Promise<void> {
  await page.goto('/login');
  await page.evaluate(({ token, record }) => {
    localStorage.setItem('token', token);
    localStorage.setItem('user', JSON.stringify(record));
  }, { token: user.token, record: user.user });
  await page.goto(path);
}

export async function serverVersion(request: APIRequestContext): Promise<string> {
  const response = await request.get('/api/version');
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as { data: { version: string } };
  return body.data.version;
}

export const test = base.extend<object, { account: TestUser }>({
  // One account per worker: enough for the shell tests, and sign-out is client-side only.
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

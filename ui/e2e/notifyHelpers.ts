import type { APIRequestContext } from '@playwright/test';
import { expect, type TestUser } from './fixtures';
import { MAIL_SERVER_URL, verificationLink, waitForMail, type Mail } from './mail';

const PASSWORD = 'correct-horse-battery';
let counter = 0;

const auth = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });

/**
 * A verified, signed-in account on the SMTP server, made through the API. Its first
 * message is the verification link, so reminders start at message 2.
 */
export async function verifiedMailUser(request: APIRequestContext, label: string): Promise<TestUser> {
  counter += 1;
  const email = `${label}-${Date.now().toString(36)}-${counter}@example.com`;
  const registered = await request.post(`${MAIL_SERVER_URL}/api/auth/register`, { data: { email, password: PASSWORD } });
  expect(registered.status(), await registered.text()).toBe(201);
  const token = verificationLink(await waitForMail(email, 1)).split('/verify-email/')[1] ?? '';
  const verified = await request.get(`${MAIL_SERVER_URL}/api/auth/verify-email/${token}`);
  expect(verified.ok(), await verified.text()).toBe(true);
  const login = await request.post(`${MAIL_SERVER_URL}/api/auth/login`, { data: { email, password: PASSWORD } });
  expect(login.ok(), await login.text()).toBe(true);
  const session = (await login.json()) as { data: { token: string; user: TestUser['user'] } };
  return { email, password: PASSWORD, token: session.data.token, user: session.data.user };
}

/** Reminders go out by e-mail only. */
export async function emailReminders(request: APIRequestContext, user: TestUser): Promise<void> {
  const response = await request.put(`${MAIL_SERVER_URL}/api/notifications/preferences`, {
    headers: auth(user),
    data: { email_notifications_enabled: true, default_delivery_methods: ['email'] },
  });
  expect(response.ok(), await response.text()).toBe(true);
}

export async function mailMedication(
  request: APIRequestContext,
  user: TestUser,
  body: Record<string, unknown>,
): Promise<number> {
  const response = await request.post(`${MAIL_SERVER_URL}/api/medications`, { headers: auth(user), data: body });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { data: { id: number } }).data.id;
}

/**
 * A one-off reminder due now (POST /api/notifications): the dispatcher, which wakes when the
 * API plans a reminder sooner than it meant to look, sends it at once.
 */
export async function sendReminderNow(request: APIRequestContext, user: TestUser, medicationId: number): Promise<number> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const created = await request.post(`${MAIL_SERVER_URL}/api/notifications`, {
    headers: auth(user),
    data: { medication_id: medicationId, scheduled_time: now, reminder_minutes_before: 0 },
  });
  expect(created.status(), await created.text()).toBe(201);
  return ((await created.json()) as { data: { id: number } }).data.id;
}

/** The quick dosage logging link in a reminder e-mail. */
export function takeLink(mail: Mail): string {
  const link = /https?:\/\/\S+\/notifications\/take\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no /notifications/take/ link in:\n${mail.text}`);
  return link;
}

export interface HistoryEntry {
  id: number;
  medication_id: number | null;
  status: string;
}

/** The account's dose history (GET /api/medications/history). */
export async function doseHistory(request: APIRequestContext, user: TestUser): Promise<HistoryEntry[]> {
  const response = await request.get(`${MAIL_SERVER_URL}/api/medications/history`, { headers: auth(user) });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { data: HistoryEntry[] }).data;
}

import type { APIRequestContext, Page } from '@playwright/test';
import { expect, registerUser, signIn, type TestUser } from './fixtures';

/** A fresh account (so empty states hold), signed in at `path`. */
export async function freshUserAt(page: Page, request: APIRequestContext, path: string): Promise<TestUser> {
  const user = await registerUser(request);
  await signIn(page, user, path);
  return user;
}

/** Creates a medication through the API (for states the UI tests do not build by hand). */
export async function createMedication(
  request: APIRequestContext,
  user: TestUser,
  body: Record<string, unknown>,
): Promise<{ id: number }> {
  const response = await request.post('/api/medications', {
    data: body,
    headers: { Authorization: `Bearer ${user.token}` },
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { data: { id: number } }).data;
}

export async function logDose(
  request: APIRequestContext,
  user: TestUser,
  medicationId: number,
  body: Record<string, unknown>,
): Promise<void> {
  const response = await request.post(`/api/medications/${medicationId}/doses`, {
    data: body,
    headers: { Authorization: `Bearer ${user.token}` },
  });
  expect(response.status(), await response.text()).toBe(201);
}

/** The browser's local date `days` from today, as a date input holds it. */
export async function localDate(page: Page, days: number): Promise<string> {
  return page.evaluate((offset) => {
    const date = new Date();
    date.setDate(date.getDate() + offset);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  }, days);
}

/** An as-needed medication whose dose of 2 tablets is more than the 1 tablet in stock. */
export function oneTabletLeft(name: string): Record<string, unknown> {
  return {
    name,
    unit: 'tablets',
    frequency: 'as_needed',
    default_quantity: 2,
    inventory: {
      enabled: true,
      inventory_type: 'discrete',
      container_type: 'blister_pack',
      container_quantity: 1,
      item_quantity: 10,
      item_unit: 'tablets',
      current_quantity: 1,
      reminder_threshold: 0,
    },
  };
}

/** The pharmacy and prescriber the prescription tests use: the Apotheke am Markt. */
export const PRESCRIPTION = {
  prescriber: 'Dr. Weber',
  pharmacy_name: 'Apotheke am Markt',
  pharmacy_phone: '+49 30 1234567',
  pharmacy_url: 'https://apotheke.example/order',
  refills_authorised: 3,
  refills_left: 2,
  order_days_before: 7,
};

/**
 * A daily tablet with `left` tablets in stock (a bottle of 100) and, unless `prescription` is
 * null, the Apotheke am Markt's prescription with `prescription`'s changes.
 */
export function prescribedTablet(
  name: string,
  left: number,
  prescription: Record<string, unknown> | null = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    unit: 'tablets',
    frequency: 'daily',
    default_quantity: 1,
    ...extra,
    inventory: {
      enabled: true,
      inventory_type: 'discrete',
      container_type: 'bottle',
      container_quantity: 1,
      item_quantity: 100,
      item_unit: 'tablets',
      current_quantity: left,
      reminder_threshold: 0,
    },
    ...(prescription === null ? {} : { prescription: { ...PRESCRIPTION, ...prescription } }),
  };
}

// Server answers for the medication screens' tests, shaped like the real server's.
import type { ErrorCode } from '../api/client';
import type { Medication, Schedule } from '../api/medicationTypes';
import { jsonResponse, mockFetch, requestUrl, sessionRoutes, type Route } from './fetchMock';

export const USER = { id: 7, email: 'pat@example.com', emailVerified: true };

/** A stored session. */
export function signInForMeds(): void {
  localStorage.setItem('token', 'stored-token');
  localStorage.setItem('user', JSON.stringify(USER));
}

/** A schedule as the server answers it: the rules not set are null, the defaults in force. */
export const SCHEDULE_JSON: Schedule = {
  times: [],
  weekdays: [],
  start_date: '2026-11-01',
  effective_times: ['09:00'],
  effective_weekdays: [],
  interval_hours: null,
  every_days: null,
  cycle_on_days: null,
  cycle_off_days: null,
  end_date: null,
  steps: [],
  max_per_day: null,
  min_gap_minutes: null,
  clock: 'wall',
  grace_minutes: 60,
  repeat_every_minutes: null,
  repeat_times: null,
};

/** A medication as the server answers it; a `schedule` override names only the rules it sets. */
export function medicationJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { schedule, ...rest } = overrides;
  return {
    id: 3,
    name: 'Aspirin',
    unit: 'mg',
    frequency: 'daily',
    color: 'blue',
    icon: 'pill-symbolic',
    notes: '',
    default_quantity: 100,
    schedule: { ...SCHEDULE_JSON, ...(schedule as Record<string, unknown> | undefined) },
    created_at: '2026-11-01T08:00:00Z',
    updated_at: '2026-11-01T08:00:00Z',
    doses: [],
    inventory: null,
    delivery_warning: null,
    next_dose_allowed_at: null,
    person_id: 1,
    escalation: null,
    prescription: null,
    ...rest,
  };
}

/** medicationJson as the app's type, for functions that take a medication. */
export function medication(overrides: Record<string, unknown> = {}): Medication {
  return medicationJson(overrides) as unknown as Medication;
}

export function inventoryJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 3,
    enabled: true,
    inventory_type: 'discrete',
    container_type: 'blister_pack',
    container_quantity: 3,
    container_size: null,
    container_unit: null,
    item_quantity: 10,
    item_strength: null,
    item_unit: 'tablets',
    total_quantity: 30,
    total_unit: 'tablets',
    current_quantity: 30,
    reminder_threshold: 10,
    stock_status: 'in_stock',
    runs_out_on: null,
    updated_at: '2026-11-01T08:00:00Z',
    batches: null,
    ...overrides,
  };
}

export function entryJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 50,
    medication_id: 3,
    medication_name: 'Aspirin',
    medication_unit: 'mg',
    status: 'taken',
    taken: '2026-11-20T08:00:00Z',
    quantity: 100,
    dosage_unit: 'mg',
    dosage: null,
    affect_inventory: true,
    dosage_id: null,
    created_at: '2026-11-20T08:00:00Z',
    person_id: 1,
    person_name: 'Pat',
    logged_by: null,
    ...overrides,
  };
}

export const ok = (data: unknown, status = 200) => jsonResponse({ success: true, data }, status);
/** The code the server gives a refusal whose site names none (src/http/error.rs `default_code`). */
function defaultCode(status: number): ErrorCode {
  if (status === 400) return 'validation_failed';
  if (status === 401) return 'authentication_required';
  if (status === 404) return 'not_found';
  return status >= 500 ? 'internal_error' : 'invalid_request';
}

/** A refusal as the server sends it: the English message, its code and the values it names. */
export const fail = (message: string, status = 400, code = defaultCode(status), params?: Record<string, string>) =>
  jsonResponse({ success: false, message, code, ...(params ? { params } : {}) }, status);

/** The signed-in app's start-up calls plus the given ones. */
export function medsServer(routes: Record<string, Route>) {
  return mockFetch({
    'GET /api/version': () => ok({ version: '1.0.0' }),
    ...sessionRoutes(USER),
    // The inventory dialog's batches: none, unless a test says otherwise.
    'GET /api/medications/3/inventory/batches': () =>
      ok({ batches: [], available: 0, expired_remaining: 0, unit: 'tablets', notice_days: 30 }),
    ...routes,
  });
}

/** The calls a mocked fetch got for one method and path (query strings aside). */
export function requestsTo(fetchMock: ReturnType<typeof mockFetch>, method: string, path: string) {
  return fetchMock.mock.calls.filter(
    ([input, init]) => (init?.method ?? 'GET') === method && new URL(requestUrl(input), 'http://x').pathname === path,
  );
}

// Checks the medication, inventory and history answers before screens use them: a field of
// the wrong kind becomes a safe default, a record without its id is refused.
import { isJsonObject, type Json, type JsonObject } from './client';
import {
  CLOCK_KINDS,
  DEFAULT_GRACE_MINUTES,
  DEFAULT_ICON,
  DEFAULT_THRESHOLD,
  DELIVERY_WARNINGS,
  DOSE_STATUSES,
  DOSE_WARNING_CODES,
  FREQUENCIES,
  INVENTORY_TYPES,
  LEDGER_KINDS,
  MEDICATION_COLORS,
  STOCK_STATUSES,
  TODAY_DOSE_STATUSES,
  type Adherence,
  type DailyTally,
  type DoseWarning,
  type HistoryEntry,
  type Inventory,
  type LedgerRow,
  type Medication,
  type MedicationAdherence,
  type Pagination,
  type RecentDose,
  type Schedule,
  type StockSummary,
  type Tally,
  type TodayDose,
  type TodaySchedule,
} from './medicationTypes';
import type { Escalation, LoggedBy } from './peopleTypes';

export class FormatError extends Error {
  constructor(what: string) {
    super(`Invalid ${what} response format`);
    this.name = 'FormatError';
  }
}

export function oneOf<T extends string>(allowed: readonly T[], value: Json | undefined, fallback: T): T {
  return allowed.find((candidate) => candidate === value) ?? fallback;
}

export function num(value: Json | undefined, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function numOrNull(value: Json | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function str(value: Json | undefined, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

export function strOrNull(value: Json | undefined): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function strings(value: Json | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function numbers(value: Json | undefined): number[] {
  return Array.isArray(value) ? value.filter((item): item is number => typeof item === 'number') : [];
}

export function objects(value: Json | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function id(value: Json | undefined, what: string): number {
  if (typeof value !== 'number') throw new FormatError(what);
  return value;
}

/** The envelope's `data`. */
export function dataOf(body: Json): Json | undefined {
  return isJsonObject(body) ? body.data : undefined;
}

/** A schedule; rules the answer leaves out (the report's summary) read as unset. */
export function parseSchedule(value: Json | undefined): Schedule {
  const s = isJsonObject(value) ? value : {};
  return {
    times: strings(s.times),
    weekdays: numbers(s.weekdays),
    start_date: str(s.start_date),
    effective_times: strings(s.effective_times),
    effective_weekdays: numbers(s.effective_weekdays),
    interval_hours: numOrNull(s.interval_hours),
    every_days: numOrNull(s.every_days),
    cycle_on_days: numOrNull(s.cycle_on_days),
    cycle_off_days: numOrNull(s.cycle_off_days),
    end_date: strOrNull(s.end_date),
    steps: objects(s.steps).map((step) => ({ days: num(step.days, 1), quantity: num(step.quantity, 1) })),
    max_per_day: numOrNull(s.max_per_day),
    min_gap_minutes: numOrNull(s.min_gap_minutes),
    clock: oneOf(CLOCK_KINDS, s.clock, 'wall'),
    grace_minutes: num(s.grace_minutes, DEFAULT_GRACE_MINUTES),
    repeat_every_minutes: numOrNull(s.repeat_every_minutes),
    repeat_times: numOrNull(s.repeat_times),
  };
}

function parseDose(value: JsonObject): RecentDose {
  return {
    id: id(value.id, 'dose'),
    status: oneOf(DOSE_STATUSES, value.status, 'taken'),
    taken: str(value.taken),
    quantity: num(value.quantity),
    dosage_unit: str(value.dosage_unit),
  };
}

export function parseInventory(value: Json | undefined): Inventory | null {
  if (!isJsonObject(value)) return null;
  return {
    id: num(value.id),
    enabled: value.enabled === true,
    inventory_type: oneOf(INVENTORY_TYPES, value.inventory_type, 'discrete'),
    container_type: strOrNull(value.container_type),
    container_quantity: numOrNull(value.container_quantity),
    container_size: numOrNull(value.container_size),
    container_unit: strOrNull(value.container_unit),
    item_quantity: numOrNull(value.item_quantity),
    item_strength: numOrNull(value.item_strength),
    item_unit: strOrNull(value.item_unit),
    total_quantity: num(value.total_quantity),
    total_unit: str(value.total_unit),
    current_quantity: num(value.current_quantity),
    reminder_threshold: num(value.reminder_threshold, DEFAULT_THRESHOLD),
    stock_status: oneOf(STOCK_STATUSES, value.stock_status, 'in_stock'),
    runs_out_on: strOrNull(value.runs_out_on),
    updated_at: str(value.updated_at),
  };
}

/** A medication's escalation, or null when it is off (`{}`, null or missing). */
export function parseEscalation(value: Json | undefined): Escalation | null {
  if (!isJsonObject(value) || typeof value.after_minutes !== 'number') return null;
  return { after_minutes: value.after_minutes, carers: numbers(value.carers) };
}

/** Who logged an entry, or null for entries from before the care circle. */
export function parseLoggedBy(value: Json | undefined): LoggedBy | null {
  if (!isJsonObject(value)) return null;
  return { user_id: numOrNull(value.user_id), name: str(value.name) };
}

export function parseMedication(value: Json | undefined): Medication {
  if (!isJsonObject(value)) throw new FormatError('medication');
  return {
    id: id(value.id, 'medication'),
    name: str(value.name),
    unit: str(value.unit),
    frequency: oneOf(FREQUENCIES, value.frequency, 'daily'),
    color: oneOf(MEDICATION_COLORS, value.color, 'blue'),
    icon: str(value.icon) || DEFAULT_ICON,
    notes: str(value.notes),
    default_quantity: num(value.default_quantity, 1),
    schedule: parseSchedule(value.schedule),
    created_at: str(value.created_at),
    updated_at: str(value.updated_at),
    doses: objects(value.doses).map(parseDose),
    inventory: parseInventory(value.inventory),
    delivery_warning: DELIVERY_WARNINGS.find((code) => code === value.delivery_warning) ?? null,
    next_dose_allowed_at: strOrNull(value.next_dose_allowed_at),
    person_id: numOrNull(value.person_id),
    escalation: parseEscalation(value.escalation),
  };
}

function parseTodayDose(value: JsonObject): TodayDose {
  return {
    medication_id: id(value.medication_id, 'today'),
    name: str(value.name),
    color: oneOf(MEDICATION_COLORS, value.color, 'blue'),
    icon: str(value.icon) || DEFAULT_ICON,
    unit: str(value.unit),
    quantity: num(value.quantity, 1),
    scheduled_time: str(value.scheduled_time),
    local_time: str(value.local_time),
    status: oneOf(TODAY_DOSE_STATUSES, value.status, 'upcoming'),
    history_id: numOrNull(value.history_id),
    logged_at: strOrNull(value.logged_at),
    reminder_id: numOrNull(value.reminder_id),
    person_id: numOrNull(value.person_id),
    person_name: strOrNull(value.person_name),
  };
}

export function parseTodaySchedule(value: Json | undefined): TodaySchedule {
  if (!isJsonObject(value)) throw new FormatError('today');
  return { date: str(value.date), doses: objects(value.doses).map(parseTodayDose) };
}

export function parseMedications(value: Json | undefined): Medication[] {
  if (!Array.isArray(value)) throw new FormatError('medications');
  return objects(value).map(parseMedication);
}

export function parseEntry(value: Json | undefined): HistoryEntry {
  if (!isJsonObject(value)) throw new FormatError('history entry');
  return {
    id: id(value.id, 'history entry'),
    medication_id: numOrNull(value.medication_id),
    medication_name: str(value.medication_name),
    medication_unit: str(value.medication_unit),
    status: oneOf(DOSE_STATUSES, value.status, 'taken'),
    taken: str(value.taken),
    quantity: num(value.quantity),
    dosage_unit: str(value.dosage_unit),
    dosage: strOrNull(value.dosage),
    affect_inventory: value.affect_inventory !== false,
    dosage_id: numOrNull(value.dosage_id),
    created_at: str(value.created_at),
    person_id: numOrNull(value.person_id),
    person_name: strOrNull(value.person_name),
    logged_by: parseLoggedBy(value.logged_by),
  };
}

/** The warning a dose answer carries (`warning`, `warning_code`), or null. */
export function parseDoseWarning(value: Json | undefined): DoseWarning | null {
  if (!isJsonObject(value)) return null;
  const code = DOSE_WARNING_CODES.find((known) => known === value.warning_code) ?? null;
  const message = typeof value.warning === 'string' ? value.warning : '';
  if (code === null && message === '') return null;
  return { code, message };
}

export function parseStockSummary(value: Json | undefined): StockSummary | null {
  if (!isJsonObject(value)) return null;
  return {
    current_quantity: num(value.current_quantity),
    stock_status: oneOf(STOCK_STATUSES, value.stock_status, 'in_stock'),
  };
}

export function parsePagination(value: Json | undefined, entries: number): Pagination {
  const p = isJsonObject(value) ? value : {};
  const limit = Math.max(1, num(p.limit, 20));
  const total = num(p.total, entries);
  const offset = num(p.offset);
  return {
    total,
    totalExact: typeof p.total_exact === 'boolean' ? p.total_exact : true,
    hasMore: typeof p.has_more === 'boolean' ? p.has_more : total > offset + entries,
    limit,
    offset,
    page: Math.max(1, num(p.page, 1)),
    pages: Math.max(1, num(p.pages, Math.ceil(total / limit))),
  };
}

export function parseLedgerRow(value: JsonObject): LedgerRow {
  return {
    id: id(value.id, 'ledger'),
    change: num(value.change),
    balance: num(value.balance),
    kind: oneOf(LEDGER_KINDS, value.kind, 'correction'),
    reason: strOrNull(value.reason),
    history_id: numOrNull(value.history_id),
    created_at: str(value.created_at),
  };
}

export function parseTally(value: Json | undefined): Tally {
  const t = isJsonObject(value) ? value : {};
  return { taken: num(t.taken), skipped: num(t.skipped), missed: num(t.missed), rate: numOrNull(t.rate) };
}

export function parseAdherence(value: Json | undefined): Adherence {
  if (!isJsonObject(value)) throw new FormatError('adherence');
  const medications: MedicationAdherence[] = objects(value.medications).map((m) => ({
    medication_id: id(m.medication_id, 'adherence'),
    name: str(m.name),
    color: oneOf(MEDICATION_COLORS, m.color, 'blue'),
    person_id: numOrNull(m.person_id),
    person_name: strOrNull(m.person_name),
    last7: parseTally(m.last7),
    last30: parseTally(m.last30),
  }));
  const daily: DailyTally[] = objects(value.daily).map((d) => ({
    date: str(d.date),
    taken: num(d.taken),
    skipped: num(d.skipped),
    missed: num(d.missed),
  }));
  return { medications, daily };
}

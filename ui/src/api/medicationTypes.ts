// The shapes of /api/medications/* as the server sends them (SPEC §3, DESIGN §3/§7).
import type { Escalation, LoggedBy } from './peopleTypes';
import type { components } from './schema';

// The enums of the document (components['schemas']), listed for checking answers at run time.
type Schemas = components['schemas'];

export type Frequency = Schemas['Frequency'];
export const FREQUENCIES = ['daily', 'twice_daily', 'weekly', 'monthly', 'as_needed'] as const satisfies readonly Frequency[];

export const MEDICATION_COLORS = ['blue', 'red', 'green', 'yellow', 'purple', 'pink', 'orange'] as const;
export type MedicationColor = (typeof MEDICATION_COLORS)[number];

export const DEFAULT_ICON = 'pill-symbolic';

export type DoseStatus = Schemas['DoseStatus'];
export const DOSE_STATUSES = ['taken', 'skipped', 'missed'] as const satisfies readonly DoseStatus[];

export type StockStatus = Schemas['StockStatus'];
export const STOCK_STATUSES = ['out_of_stock', 'low', 'in_stock'] as const satisfies readonly StockStatus[];

export type InventoryType = Schemas['InventoryType'];
export const INVENTORY_TYPES = ['continuous', 'discrete'] as const satisfies readonly InventoryType[];

export const CONTINUOUS_CONTAINERS = ['vial', 'bottle', 'syringe', 'box', 'tube'] as const;
export const DISCRETE_CONTAINERS = ['pill_bottle', 'blister_pack', 'tablet_strip', 'bottle', 'box'] as const;
export type ContainerType = (typeof CONTINUOUS_CONTAINERS)[number] | (typeof DISCRETE_CONTAINERS)[number];

export const LEDGER_KINDS = ['initial', 'dose', 'dose_reverted', 'adjustment', 'correction'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** SPEC §9: the low-stock threshold when none is given. */
export const DEFAULT_THRESHOLD = 10;
/** SPEC §9: the dose quantity when a medication has none. */
export const DEFAULT_DOSE_QUANTITY = 1;
/** SPEC §9: the recent doses shown per medication. */
export const RECENT_DOSES = 5;
/** SPEC §9: history page size. */
export const HISTORY_PAGE_SIZE = 20;

export interface Schedule {
  /** The person's own times of day, "HH:MM" in their zone. */
  times: string[];
  /** The person's own weekdays, 1 = Monday … 7 = Sunday. */
  weekdays: number[];
  start_date: string;
  /** The times that apply, defaults included (DESIGN §4). */
  effective_times: string[];
  effective_weekdays: number[];
  /** Every N hours from `times[0]`. */
  interval_hours: number | null;
  every_days: number | null;
  cycle_on_days: number | null;
  cycle_off_days: number | null;
  /** The last day with doses. */
  end_date: string | null;
  /** A tapering plan from the start date. */
  steps: Step[];
  max_per_day: number | null;
  min_gap_minutes: number | null;
  /** The clock in force. */
  clock: ClockKind;
  /** The grace in force (the default when unset). */
  grace_minutes: number;
  /** Null: the person's own follow-up setting. */
  repeat_every_minutes: number | null;
  repeat_times: number | null;
}

export type ClockKind = Schemas['ClockKind'];
export const CLOCK_KINDS = ['wall', 'elapsed'] as const satisfies readonly ClockKind[];

export type Step = Schemas['Step'];

/** A tapering plan's step on the calendar, both days included (the report's stages). */
export type DatedStep = Schemas['DatedStep'];

/** The server's default grace before an unlogged dose counts as missed. */
export const DEFAULT_GRACE_MINUTES = 60;

export interface RecentDose {
  id: number;
  status: DoseStatus;
  taken: string;
  quantity: number;
  dosage_unit: string;
}

export interface Inventory {
  id: number;
  enabled: boolean;
  inventory_type: InventoryType;
  container_type: string | null;
  container_quantity: number | null;
  container_size: number | null;
  container_unit: string | null;
  item_quantity: number | null;
  item_strength: number | null;
  item_unit: string | null;
  total_quantity: number;
  total_unit: string;
  current_quantity: number;
  reminder_threshold: number;
  stock_status: StockStatus;
  runs_out_on: string | null;
  updated_at: string;
}

/**
 * Why a medication's reminders can reach nobody: push is its way and no device is subscribed,
 * e-mail is its way and the server cannot send it or the address is unverified, or every
 * method is switched off.
 */
export const DELIVERY_WARNINGS = [
  'no_push_device',
  'email_unavailable',
  'email_unverified',
  'no_method',
  'channel_unavailable',
] as const;
export type DeliveryWarningCode = (typeof DELIVERY_WARNINGS)[number];

export interface Medication {
  id: number;
  name: string;
  unit: string;
  frequency: Frequency;
  color: MedicationColor;
  icon: string;
  notes: string;
  default_quantity: number;
  schedule: Schedule;
  created_at: string;
  updated_at: string;
  doses: RecentDose[];
  inventory: Inventory | null;
  /** Why its reminders can reach nobody, or null when one can arrive (or reminders are off). */
  delivery_warning: DeliveryWarningCode | null;
  /** As needed with limits: when the next dose is allowed (RFC 3339); may lie in the past. */
  next_dose_allowed_at: string | null;
  /** Whose medication it is (null from a server without the care circle). */
  person_id: number | null;
  /** Null: missed doses are not escalated to carers. */
  escalation: Escalation | null;
}

/** The inventory fields a form sends (POST/PUT medication, PUT inventory). */
export interface InventoryInput {
  enabled: boolean;
  inventory_type: InventoryType;
  container_type: string | null;
  container_quantity: number | null;
  container_size: number | null;
  container_unit: string | null;
  item_quantity: number | null;
  item_strength: number | null;
  item_unit: string | null;
  /** Left out: a newly enabled stock starts full; given: a correction. */
  current_quantity?: number;
  reminder_threshold: number;
}

/** What a form sends; a rule given as null is cleared, one left out is kept. */
export type ScheduleInput = Schemas['ScheduleInput'];

export interface MedicationInput {
  name: string;
  unit: string;
  frequency: Frequency;
  color: MedicationColor;
  icon: string;
  notes: string;
  default_quantity: number;
  schedule?: ScheduleInput;
  inventory?: InventoryInput;
  /** On create: whose medication (the account holder when left out). */
  person_id?: number;
  /** Null turns escalation off; left out keeps it. */
  escalation?: Escalation | null;
}

export interface HistoryEntry {
  id: number;
  /** null once the medication was deleted (the entry keeps its name). */
  medication_id: number | null;
  medication_name: string;
  medication_unit: string;
  status: DoseStatus;
  taken: string;
  quantity: number;
  dosage_unit: string;
  dosage: string | null;
  affect_inventory: boolean;
  dosage_id: number | null;
  created_at: string;
  person_id: number | null;
  /** Whose dose, by name; only in history lists (which may hold several people's). */
  person_name?: string | null;
  /** Null for entries from before the care circle. */
  logged_by: LoggedBy | null;
}

export type TodayDoseStatus = Schemas['DoseState'];
export const TODAY_DOSE_STATUSES = ['upcoming', 'due', 'taken', 'skipped', 'missed'] as const satisfies readonly TodayDoseStatus[];

/** One dose scheduled today (GET /api/medications/today), with how it stands. */
export interface TodayDose {
  medication_id: number;
  name: string;
  color: MedicationColor;
  icon: string;
  unit: string;
  quantity: number;
  scheduled_time: string;
  /** "HH:MM" in the person's zone. */
  local_time: string;
  status: TodayDoseStatus;
  history_id: number | null;
  /** When the entry that answered it was logged (RFC 3339). */
  logged_at: string | null;
  reminder_id: number | null;
  person_id: number | null;
  person_name: string | null;
}

export interface TodaySchedule {
  date: string;
  doses: TodayDose[];
}

/** SPEC §3 "dosage log payload". */
export interface DoseInput {
  taken?: string;
  status: DoseStatus;
  quantity: number;
  dosage_unit: string;
  dosage?: string;
  dosage_id?: number;
  affect_inventory?: boolean;
  /** Log it even when it comes too soon or over the day's maximum. */
  confirm?: boolean;
}

export interface StockSummary {
  current_quantity: number;
  stock_status: StockStatus;
}

/** Why a recorded dose left the stock alone or could not take all it needed. */
export type DoseWarningCode = Schemas['DoseWarning'];
export const DOSE_WARNING_CODES = ['stock_unit_mismatch', 'stock_short'] as const satisfies readonly DoseWarningCode[];

/** The server's warning about a recorded dose: its English text and, when known, its code. */
export interface DoseWarning {
  code: DoseWarningCode | null;
  message: string;
}

/** What a dose log or a history change answers: the entry, the stock after it, any warning. */
export interface EntryResult {
  entry: HistoryEntry;
  inventory: StockSummary | null;
  warning: DoseWarning | null;
}

export interface LedgerRow {
  id: number;
  change: number;
  balance: number;
  kind: LedgerKind;
  reason: string | null;
  history_id: number | null;
  created_at: string;
}

export interface AdjustmentResult extends StockSummary {
  inventory: Inventory;
}

/** SPEC §3 "History filters"; dates are YYYY-MM-DD in the person's zone, inclusive. */
export interface HistoryFilters {
  page: number;
  limit?: number;
  status?: DoseStatus | '';
  medicationId?: number | null;
  date_from?: string;
  date_to?: string;
  /** One person's history; left out: everyone's the server shows. */
  personId?: number | null;
}

export interface Pagination {
  /** When not `totalExact`, a lower bound: the server counted a long list only so far. */
  total: number;
  totalExact: boolean;
  /** Whether rows follow this page. */
  hasMore: boolean;
  limit: number;
  offset: number;
  page: number;
  pages: number;
}

export interface LedgerPage {
  rows: LedgerRow[];
  pagination: Pagination;
}

export interface HistoryPage {
  entries: HistoryEntry[];
  pagination: Pagination;
}

export interface Tally {
  taken: number;
  skipped: number;
  missed: number;
  /** taken / (taken + skipped + missed), or null with nothing logged. */
  rate: number | null;
}

export interface MedicationAdherence {
  medication_id: number;
  name: string;
  color: MedicationColor;
  /** Whose medication (the summary may hold several people's). */
  person_id: number | null;
  person_name: string | null;
  last7: Tally;
  last30: Tally;
}

export interface DailyTally {
  date: string;
  taken: number;
  skipped: number;
  missed: number;
}

export interface Adherence {
  medications: MedicationAdherence[];
  /** 30 days, oldest first. */
  daily: DailyTally[];
}

// The shapes of /api/medications/* as the server sends them (SPEC §3, DESIGN §3/§7).
import type { Escalation } from './peopleTypes';
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

/** A medication's schedule as set, with the defaults and the clock in force filled in. */
export type Schedule = Schemas['ScheduleView'];

export type ClockKind = Schemas['ClockKind'];
export const CLOCK_KINDS = ['wall', 'elapsed'] as const satisfies readonly ClockKind[];

export type Step = Schemas['Step'];

/** A tapering plan's step on the calendar, both days included (the report's stages). */
export type DatedStep = Schemas['DatedStep'];

/** The server's default grace before an unlogged dose counts as missed. */
export const DEFAULT_GRACE_MINUTES = 60;

export type RecentDose = Schemas['RecentDose'];

export type Inventory = Schemas['InventoryView'];
/** A stock batch: what it held, what is left, its expiry day and lot. */
export type Batch = Schemas['BatchView'];
export type Batches = Schemas['Batches'];
export type BatchInput = Schemas['BatchInput'];
/** A new batch: its quantity and expiry day are needed. */
export type NewBatchInput = Schemas['NewBatchInput'];

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

/**
 * A medication with its schedule, stock and latest doses. `delivery_warning` is one of
 * DELIVERY_WARNINGS (or null); `color` one of MEDICATION_COLORS.
 */
export type Medication = Schemas['MedicationView'];

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

/** A unit's symbol in the server's catalogue (GET /api/units), as the document lists them. */
export type UnitSymbol = NonNullable<Schemas['MedicationInput']['unit']>;

export interface MedicationInput {
  name: string;
  unit: UnitSymbol;
  frequency: Frequency;
  /** One of MEDICATION_COLORS. */
  color: string;
  icon: string;
  notes: string;
  default_quantity: number;
  schedule?: ScheduleInput;
  inventory?: InventoryInput;
  /** On create: whose medication (the account holder when left out). */
  person_id?: number;
  /** Null turns escalation off; left out keeps it. */
  escalation?: Escalation | null;
  /** Null removes the prescription; left out keeps it. */
  prescription?: PrescriptionInput | null;
}

/** A prescription as a medication's form sends it (POST/PUT /api/medications). */
export type PrescriptionInput = Schemas['PrescriptionInput'];
/** A medication's prescription and what needs ordering. */
export type Prescription = Schemas['PrescriptionView'];
/** What needs ordering now, and by when. */
export type RefillNeed = Schemas['RefillNeed'];

/** A history entry; lists (GET history) also say whose dose it is by name. */
export type HistoryEntry = Schemas['Entry'] & { person_name?: string };

export type TodayDoseStatus = Schemas['DoseState'];
export const TODAY_DOSE_STATUSES = ['upcoming', 'due', 'taken', 'skipped', 'missed'] as const satisfies readonly TodayDoseStatus[];

/** One dose scheduled today (GET /api/medications/today), with how it stands. */
export type TodayDose = Schemas['TodayDose'];

export type TodaySchedule = Schemas['TodayView'];

/** SPEC §3 "dosage log payload". */
export interface DoseInput {
  taken?: string;
  status: DoseStatus;
  quantity: number;
  dosage_unit: string;
  dosage?: string;
  dosage_id?: number;
  /** The planned dose it logs, by its time, when that has no reminder (answers no other). */
  scheduled_time?: string;
  affect_inventory?: boolean;
  /** Log it even when it comes too soon or over the day's maximum. */
  confirm?: boolean;
}

export type StockSummary = Schemas['StockLevel'];

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

/** A stock change; `kind` is one of LEDGER_KINDS. */
export type LedgerRow = Schemas['LedgerRow'];

export type AdjustmentResult = Schemas['MessageData_Adjusted']['data'];

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

/** taken / (taken + skipped + missed) as `rate`, null with nothing logged. */
export type Tally = Omit<Schemas['Adherence'], 'rate'> & { rate: number | null };

export type MedicationAdherence = Omit<Schemas['MedicationAdherence'], 'last7' | 'last30'> & { last7: Tally; last30: Tally };

export type DailyTally = Schemas['DailyAdherence'];

/** 30 days of `daily` tallies, oldest first. */
export interface Adherence {
  medications: MedicationAdherence[];
  daily: DailyTally[];
}

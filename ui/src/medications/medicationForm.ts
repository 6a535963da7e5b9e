// The add/edit form of a medication as text, its checks and what is sent.
import {
  DEFAULT_GRACE_MINUTES,
  DEFAULT_ICON,
  type ClockKind,
  type Frequency,
  type Medication,
  type MedicationInput,
  type PrescriptionInput,
  type UnitSymbol,
  type ScheduleInput,
} from '../api/medicationTypes';
import { positiveAmountProblem } from './dosage';
import { emptyInventoryForm, inventoryInput, inventoryProblem, type InventoryForm } from './inventoryForm';
import { findUnit, unitProblem, type Problem } from './units';

export const MEDICATION_ICONS = [
  'pill-symbolic',
  'capsule-symbolic',
  'tablet-symbolic',
  'bottle-symbolic',
  'syringe-symbolic',
  'drops-symbolic',
  'inhaler-symbolic',
] as const;

/** Missed-dose escalation as the form holds it. */
export interface EscalationForm {
  enabled: boolean;
  afterMinutes: string;
  /** The chosen carers' user ids. */
  carers: number[];
}

/** The server's bounds for `after_minutes`. */
export const ESCALATION_MIN_MINUTES = 5;
export const ESCALATION_MAX_MINUTES = 1440;
export const DEFAULT_ESCALATION_MINUTES = 30;

export function escalationFormOf(m: Pick<Medication, 'escalation'> | null): EscalationForm {
  return m?.escalation
    ? { enabled: true, afterMinutes: String(m.escalation.after_minutes), carers: [...m.escalation.carers] }
    : { enabled: false, afterMinutes: String(DEFAULT_ESCALATION_MINUTES), carers: [] };
}

/** A prescription as the form holds it: text fields, off when the medication has none. */
export interface PrescriptionForm {
  enabled: boolean;
  /** The medication had one when the form opened (turning it off then removes it). */
  existed: boolean;
  prescriber: string;
  pharmacyName: string;
  pharmacyPhone: string;
  pharmacyUrl: string;
  prescribedOn: string;
  expiresOn: string;
  refillsAuthorised: string;
  refillsLeft: string;
  orderDaysBefore: string;
}

export const DEFAULT_ORDER_DAYS_BEFORE = 7;

export function prescriptionFormOf(m: Pick<Medication, 'prescription'> | null): PrescriptionForm {
  const p = m?.prescription ?? null;
  const count = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));
  return {
    enabled: p !== null,
    existed: p !== null,
    prescriber: p?.prescriber ?? '',
    pharmacyName: p?.pharmacy_name ?? '',
    pharmacyPhone: p?.pharmacy_phone ?? '',
    pharmacyUrl: p?.pharmacy_url ?? '',
    prescribedOn: p?.prescribed_on ?? '',
    expiresOn: p?.expires_on ?? '',
    refillsAuthorised: count(p?.refills_authorised),
    refillsLeft: count(p?.refills_left),
    orderDaysBefore: String(p?.order_days_before ?? DEFAULT_ORDER_DAYS_BEFORE),
  };
}

/** What the form sends: the prescription, null to remove it, or nothing to leave none. */
export function prescriptionInput(form: PrescriptionForm): PrescriptionInput | null | undefined {
  if (!form.enabled) return form.existed ? null : undefined;
  const count = (text: string) => (text.trim() === '' ? null : Number(text));
  const day = (text: string) => (text === '' ? null : text);
  return {
    prescriber: form.prescriber.trim(),
    pharmacy_name: form.pharmacyName.trim(),
    pharmacy_phone: form.pharmacyPhone.trim(),
    pharmacy_url: form.pharmacyUrl.trim(),
    prescribed_on: day(form.prescribedOn),
    expires_on: day(form.expiresOn),
    refills_authorised: count(form.refillsAuthorised),
    refills_left: count(form.refillsLeft),
    order_days_before: count(form.orderDaysBefore) ?? DEFAULT_ORDER_DAYS_BEFORE,
  };
}

export interface MedicationForm {
  /** Whose medication (chosen on create; null: the server's default, the account holder). */
  personId: number | null;
  prescription: PrescriptionForm;
  escalation: EscalationForm;
  name: string;
  unit: string;
  frequency: Frequency;
  /** One of MEDICATION_COLORS (the document calls it a string). */
  color: string;
  icon: string;
  defaultQuantity: string;
  notes: string;
  times: string[];
  weekdays: number[];
  startDate: string;
  inventory: InventoryForm;
  rules: RulesForm;
}

/** Which days a daily schedule falls on. */
export type DayPattern = 'every_day' | 'every_n_days' | 'cycle';

export interface StepForm {
  days: string;
  quantity: string;
}

/** The schedule rules beyond times and weekdays, as text ('' = not set). */
export interface RulesForm {
  /** '' = at the times of day; else every N hours from the first time. */
  intervalHours: string;
  dayPattern: DayPattern;
  everyDays: string;
  cycleOnDays: string;
  cycleOffDays: string;
  endDate: string;
  steps: StepForm[];
  maxPerDay: string;
  /** The least time between doses of an as-needed medication, in hours and minutes ('' = not set). */
  minGapHours: string;
  minGapMinutes: string;
  /** '' = the default: elapsed for an interval, else wall. */
  clock: ClockKind | '';
  graceMinutes: string;
  /** false = the person's own follow-up setting. */
  ownFollowUps: boolean;
  repeatEveryMinutes: string;
  repeatTimes: string;
}

export function emptyRulesForm(): RulesForm {
  return {
    intervalHours: '',
    dayPattern: 'every_day',
    everyDays: '2',
    cycleOnDays: '21',
    cycleOffDays: '7',
    endDate: '',
    steps: [],
    maxPerDay: '',
    minGapHours: '',
    minGapMinutes: '',
    clock: '',
    graceMinutes: String(DEFAULT_GRACE_MINUTES),
    ownFollowUps: false,
    repeatEveryMinutes: '10',
    repeatTimes: '3',
  };
}

const text = (value: number | null, fallback = '') => (value === null ? fallback : String(value));

/** A gap in minutes as the form's hours and minutes: 90 → 1 h 30 min; none → both empty. */
export function gapFormOf(minutes: number | null): Pick<RulesForm, 'minGapHours' | 'minGapMinutes'> {
  if (minutes === null) return { minGapHours: '', minGapMinutes: '' };
  return { minGapHours: String(Math.floor(minutes / 60)), minGapMinutes: String(minutes % 60) };
}

/** The form's hours and minutes as the minutes the API takes: null when both are empty or unusable. */
export function gapMinutes(r: Pick<RulesForm, 'minGapHours' | 'minGapMinutes'>): number | null {
  const [hours, minutes] = [r.minGapHours.trim(), r.minGapMinutes.trim()];
  if (hours === '' && minutes === '') return null;
  const [h, m] = [hours === '' ? 0 : Number(hours), minutes === '' ? 0 : Number(minutes)];
  return Number.isInteger(h) && Number.isInteger(m) ? h * 60 + m : null;
}

/** The clock a schedule gets when none is chosen (the server's rule). */
export function defaultClock(intervalHours: string): ClockKind {
  return intervalHours === '' ? 'wall' : 'elapsed';
}

export function rulesFormOf(m: Medication): RulesForm {
  const s = m.schedule;
  const empty = emptyRulesForm();
  const intervalHours = text(s.interval_hours);
  return {
    intervalHours,
    dayPattern: s.cycle_on_days !== null ? 'cycle' : s.every_days !== null ? 'every_n_days' : 'every_day',
    everyDays: text(s.every_days, empty.everyDays),
    cycleOnDays: text(s.cycle_on_days, empty.cycleOnDays),
    cycleOffDays: text(s.cycle_off_days, empty.cycleOffDays),
    endDate: s.end_date ?? '',
    steps: s.steps.map((step) => ({ days: String(step.days), quantity: String(step.quantity) })),
    maxPerDay: text(s.max_per_day),
    ...gapFormOf(s.min_gap_minutes),
    clock: s.clock === defaultClock(intervalHours) ? '' : s.clock,
    graceMinutes: String(s.grace_minutes),
    ownFollowUps: s.repeat_every_minutes !== null || s.repeat_times !== null,
    repeatEveryMinutes: text(s.repeat_every_minutes, empty.repeatEveryMinutes),
    repeatTimes: text(s.repeat_times, empty.repeatTimes),
  };
}

/** Whether anything under "More schedule options" differs from a plain schedule. */
export function hasMoreOptions(form: MedicationForm): boolean {
  const r = form.rules;
  return (
    r.intervalHours !== '' ||
    r.dayPattern !== 'every_day' ||
    r.endDate !== '' ||
    r.steps.length > 0 ||
    r.clock !== '' ||
    r.graceMinutes !== String(DEFAULT_GRACE_MINUTES) ||
    r.ownFollowUps
  );
}

/** Daily and twice-daily schedules can repeat by hours, skip days or cycle. */
export function repeatsDaily(frequency: Frequency): boolean {
  return frequency === 'daily' || frequency === 'twice_daily';
}

export function emptyMedicationForm(personId: number | null = null): MedicationForm {
  return {
    personId,
    prescription: prescriptionFormOf(null),
    escalation: escalationFormOf(null),
    name: '',
    unit: 'tablets',
    frequency: 'daily',
    color: 'blue',
    icon: DEFAULT_ICON,
    defaultQuantity: '1',
    notes: '',
    times: [],
    weekdays: [],
    startDate: '',
    inventory: emptyInventoryForm('tablets'),
    rules: emptyRulesForm(),
  };
}

export function medicationFormOf(m: Medication): MedicationForm {
  return {
    personId: m.person_id,
    prescription: prescriptionFormOf(m),
    escalation: escalationFormOf(m),
    name: m.name,
    unit: m.unit,
    frequency: m.frequency,
    color: m.color,
    icon: m.icon,
    defaultQuantity: String(m.default_quantity),
    notes: m.notes,
    times: [...m.schedule.times],
    weekdays: [...m.schedule.weekdays],
    startDate: m.schedule.start_date,
    inventory: emptyInventoryForm(m.unit),
    rules: rulesFormOf(m),
  };
}

export const MAX_NAME_LENGTH = 200;
export const MAX_NOTES_LENGTH = 2000;
export const MAX_TIMES = 12;

/** The first problem with the form; the stock section only counts when it is on. */
export function medicationProblem(form: MedicationForm): Problem | null {
  if (form.name.trim() === '') return { key: 'validation.nameRequired' };
  const unit = unitProblem(form.unit);
  if (unit) return unit;
  const quantity = positiveAmountProblem(form.defaultQuantity);
  if (quantity) return quantity;
  const rules = rulesProblem(form);
  if (rules) return rules;
  const escalation = escalationProblem(form.escalation);
  if (escalation) return escalation;
  return inventoryProblem(form.inventory, form.unit);
}

/** An escalation that is on needs its delay in bounds and at least one carer. */
export function escalationProblem(escalation: EscalationForm): Problem | null {
  if (!escalation.enabled) return null;
  if (whole(escalation.afterMinutes, ESCALATION_MIN_MINUTES, ESCALATION_MAX_MINUTES) === null) {
    return {
      key: 'validation.range',
      values: {
        field: 'circle:escalation.afterMinutes',
        low: String(ESCALATION_MIN_MINUTES),
        high: String(ESCALATION_MAX_MINUTES),
      },
    };
  }
  if (escalation.carers.length === 0) return { key: 'circle:escalation.noCarersChosen' };
  return null;
}

/** The escalation as sent: null turns it off. */
export function escalationInput(escalation: EscalationForm): MedicationInput['escalation'] {
  return escalation.enabled
    ? { after_minutes: Number(escalation.afterMinutes.trim()), carers: [...escalation.carers].sort((a, b) => a - b) }
    : null;
}

const WHOLE = /^\d+$/;

/** A whole number from low to high, or null; '' is null too. */
function whole(value: string, low: number, high: number): number | null {
  const trimmed = value.trim();
  if (!WHOLE.test(trimmed)) return null;
  const n = Number(trimmed);
  return n >= low && n <= high ? n : null;
}

interface Limit {
  value: string;
  low: number;
  high: number;
  key: string;
  optional?: boolean;
}

/** The limits the server checks (domain::schedule), checked here first to say it sooner. */
function rulesProblem(form: MedicationForm): Problem | null {
  const r = form.rules;
  const limits: Limit[] = [];
  if (form.frequency === 'as_needed') {
    limits.push({ value: r.maxPerDay, low: 1, high: 48, key: 'rules.maxPerDay', optional: true });
    limits.push({ value: r.minGapHours, low: 0, high: 24, key: 'rules.minGapHoursField', optional: true });
    limits.push({ value: r.minGapMinutes, low: 0, high: 59, key: 'rules.minGapMinutesField', optional: true });
  } else {
    if (repeatsDaily(form.frequency)) {
      limits.push({ value: r.intervalHours, low: 1, high: 24, key: 'rules.intervalHours', optional: true });
      if (r.dayPattern === 'every_n_days') limits.push({ value: r.everyDays, low: 1, high: 366, key: 'rules.everyDays' });
      if (r.dayPattern === 'cycle') {
        limits.push({ value: r.cycleOnDays, low: 1, high: 366, key: 'rules.cycleOn' });
        limits.push({ value: r.cycleOffDays, low: 1, high: 366, key: 'rules.cycleOff' });
      }
    }
    limits.push({ value: r.graceMinutes, low: 1, high: 720, key: 'rules.grace', optional: true });
    if (r.ownFollowUps) {
      limits.push({ value: r.repeatEveryMinutes, low: 1, high: 1440, key: 'rules.repeatEvery' });
      limits.push({ value: r.repeatTimes, low: 0, high: 10, key: 'rules.repeatTimes' });
    }
    for (const step of r.steps) {
      limits.push({ value: step.days, low: 1, high: 366, key: 'rules.stepDays' });
      const quantity = positiveAmountProblem(step.quantity);
      if (quantity) return quantity;
    }
  }
  for (const limit of limits) {
    if (limit.optional && limit.value.trim() === '') continue;
    if (whole(limit.value, limit.low, limit.high) === null) {
      return { key: 'validation.range', values: { field: limit.key, low: String(limit.low), high: String(limit.high) } };
    }
  }
  const gap = form.frequency === 'as_needed' ? gapMinutes(r) : null;
  if (gap !== null && (gap < 1 || gap > 1440)) return { key: 'validation.gapRange' };
  if (r.endDate !== '' && form.startDate !== '' && r.endDate < form.startDate) {
    return { key: 'validation.endBeforeStart' };
  }
  return null;
}

const numberOrNull = (value: string) => (value.trim() === '' ? null : Number(value.trim()));

/**
 * The rules as sent: every rule is named, so that one switched off is cleared (null) on
 * the server rather than kept; the ones a frequency cannot have are null too.
 */
export function rulesInput(form: MedicationForm): Omit<ScheduleInput, 'times' | 'weekdays' | 'start_date'> {
  const r = form.rules;
  const daily = repeatsDaily(form.frequency);
  const scheduled = form.frequency !== 'as_needed';
  return {
    interval_hours: daily ? numberOrNull(r.intervalHours) : null,
    every_days: daily && r.dayPattern === 'every_n_days' ? numberOrNull(r.everyDays) : null,
    cycle_on_days: daily && r.dayPattern === 'cycle' ? numberOrNull(r.cycleOnDays) : null,
    cycle_off_days: daily && r.dayPattern === 'cycle' ? numberOrNull(r.cycleOffDays) : null,
    end_date: scheduled && r.endDate !== '' ? r.endDate : null,
    steps: scheduled ? r.steps.map((step) => ({ days: Number(step.days), quantity: Number(step.quantity) })) : [],
    max_per_day: scheduled ? null : numberOrNull(r.maxPerDay),
    min_gap_minutes: scheduled ? null : gapMinutes(r),
    clock: daily && r.clock !== '' ? r.clock : null,
    // The default is sent as unset, so that it follows the server's default.
    grace_minutes: scheduled && r.graceMinutes.trim() !== String(DEFAULT_GRACE_MINUTES) ? numberOrNull(r.graceMinutes) : null,
    repeat_every_minutes: scheduled && r.ownFollowUps ? numberOrNull(r.repeatEveryMinutes) : null,
    repeat_times: scheduled && r.ownFollowUps ? numberOrNull(r.repeatTimes) : null,
  };
}

/** Only the rules that are set: a new medication has nothing to clear. */
function setRules<T extends object>(rules: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(rules).filter(([, value]) => value !== null && !(Array.isArray(value) && value.length === 0)),
  ) as Partial<T>;
}

/**
 * The time a new row of the times list starts with: a second time 12 hours after the first
 * (08:00 → 20:00, as twice-daily doses go), else the default reminder time when it is not in
 * the list yet, else empty.
 */
export function timeToAdd(times: readonly string[], defaultTime: string): string {
  const first = /^(\d{2}):(\d{2})$/.exec(times[0] ?? '');
  if (times.length === 1 && first) {
    return `${String((Number(first[1]) + 12) % 24).padStart(2, '0')}:${first[2]}`;
  }
  return times.includes(defaultTime) ? '' : defaultTime;
}

/** Times of day as the server keeps them: filled in, sorted, once each. */
export function cleanTimes(times: string[]): string[] {
  return [...new Set(times.filter((time) => /^\d{2}:\d{2}$/.test(time)))].sort();
}

/** The times sent: none as needed; only the first dose's time for an interval schedule. */
function scheduleTimes(form: MedicationForm): string[] {
  if (form.frequency === 'as_needed') return [];
  const times = cleanTimes(form.times);
  if (repeatsDaily(form.frequency) && form.rules.intervalHours.trim() !== '') {
    const first = form.times.find((time) => /^\d{2}:\d{2}$/.test(time));
    return first === undefined ? [] : [first];
  }
  return times;
}

/**
 * The catalogue's symbol of a unit as typed (an alias, another case); the form checked it is
 * one (`unitProblem`) before it is sent.
 */
function unitSymbol(text: string): UnitSymbol {
  return (findUnit(text)?.symbol ?? text.trim()) as UnitSymbol;
}

/**
 * The body of POST /api/medications (`withInventory`: a new one) or PUT /api/medications/{id}
 * (which names every rule, null clearing it). `withEscalation`: the viewer set the escalation
 * (only a person's owner can), else it is left as it is.
 */
export function medicationInput(form: MedicationForm, withInventory: boolean, withEscalation = false): MedicationInput {
  const input: MedicationInput = {
    name: form.name.trim(),
    unit: unitSymbol(form.unit),
    frequency: form.frequency,
    color: form.color,
    icon: form.icon || DEFAULT_ICON,
    notes: form.notes.trim(),
    default_quantity: Number(form.defaultQuantity),
    schedule: {
      times: scheduleTimes(form),
      weekdays: form.frequency === 'weekly' ? [...form.weekdays].sort((a, b) => a - b) : [],
      ...(withInventory ? setRules(rulesInput(form)) : rulesInput(form)),
    },
  };
  if (form.startDate !== '' && input.schedule) input.schedule.start_date = form.startDate;
  if (withInventory && form.inventory.enabled) input.inventory = inventoryInput(form.inventory, true);
  if (withInventory && form.personId !== null) input.person_id = form.personId;
  if (withEscalation) input.escalation = escalationInput(form.escalation);
  const prescription = prescriptionInput(form.prescription);
  if (prescription !== undefined) input.prescription = prescription;
  return input;
}

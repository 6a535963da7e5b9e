// The person's data as files and records (issue 11): export, import, the doctor report,
// daily backups, retention, and the settings that govern them.
import { apiFileRequest, apiRequest, isJsonObject, type Json } from './client';
import {
  FormatError,
  dataOf,
  parseSchedule,
  num,
  objects,
  oneOf,
  parseTally,
  str,
  strOrNull,
} from './medicationParse';
import {
  FREQUENCIES,
  MEDICATION_COLORS,
  STOCK_STATUSES,
  type DatedStep,
  type Schedule,
  type Tally,
} from './medicationTypes';
import type { components } from './schema';

/** A file the server handed over, with the name it gave it. */
export interface DownloadedFile {
  blob: Blob;
  fileName: string;
}

export type ExportFormat = 'json' | 'csv';

/** The server's upload limit for an import (it answers 413 above it). */
export const IMPORT_LIMIT_BYTES = 64 * 1024 * 1024;

export interface ImportSummary {
  dryRun: boolean;
  medications: { added: number; skipped: number };
  schedules: { added: number };
  history: { added: number; skipped: number };
}

/**
 * What choosing a retention period deletes now (`entries`), and the instant before which
 * entries go (`cutoff`; null for "forever"): the document's Preview, with cutoff always set.
 */
export type RetentionPreview = Required<components['schemas']['Preview']>;

/** One kept backup file (the document's Kept). */
export type Backup = components['schemas']['Kept'];

/** The three settings Settings → Medications and → Data Management change. */
export interface DataSettings {
  defaultReminderTime: string;
  autoBackup: boolean;
  dataRetention: number;
}

export interface ReportStock {
  current_quantity: number;
  total_unit: string;
  stock_status: (typeof STOCK_STATUSES)[number];
  runs_out_on: string | null;
}

/** An as-needed medication's use over the period (the document's Usage). */
export type ReportUsage = components['schemas']['Usage'];

/** A dose taken over an as-needed limit (the document's OverLimitDose). */
export type OverLimitDose = components['schemas']['OverLimitDose'];

export interface ReportMedication {
  id: number;
  name: string;
  unit: string;
  frequency: (typeof FREQUENCIES)[number];
  default_quantity: number;
  color: (typeof MEDICATION_COLORS)[number];
  schedule: Schedule;
  /** A tapering plan's steps with their dates, and the course's last day. */
  stages: DatedStep[];
  last_day: string | null;
  inventory: ReportStock | null;
  /** Null for an as-needed medication: its `usage` stands instead. */
  adherence: Tally | null;
  usage: ReportUsage | null;
  over_limit: OverLimitDose[];
}

export interface MissedDose {
  medication_name: string;
  time: string;
  /** "logged": marked missed by the person; "unanswered": scheduled and never logged. */
  source: 'logged' | 'unanswered';
}

export interface Report {
  from: string;
  to: string;
  generated_at: string;
  timezone: string;
  totals: Tally;
  medications: ReportMedication[];
  missed: MissedDose[];
}

/**
 * The file name from a Content-Disposition header: `filename*` (RFC 5987) first, then a
 * quoted or bare `filename`; null when there is none.
 */
export function fileNameFrom(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*(?:[\w-]+)?'[^']*'([^;]+)/i.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // A badly encoded name: fall back to the plain one.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim();
  return name ? name : null;
}

async function download(path: string, fallbackName: string): Promise<DownloadedFile> {
  const response = await apiFileRequest(path);
  const fileName = fileNameFrom(response.headers.get('Content-Disposition')) ?? fallbackName;
  return { blob: await response.blob(), fileName };
}

/** GET /api/export: the whole record as JSON, or the history as CSV. */
export function downloadExport(format: ExportFormat): Promise<DownloadedFile> {
  return format === 'csv'
    ? download('/api/export?format=csv', 'pillbox-history.csv')
    : download('/api/export', 'pillbox-export.json');
}

/** GET /api/backups/{name}: one of the kept daily exports. */
export function downloadBackup(name: string): Promise<DownloadedFile> {
  return download(`/api/backups/${encodeURIComponent(name)}`, name);
}

/** The history CSV goes up as CSV; anything else as the JSON export it should be. */
export function importContentType(file: File): string {
  return file.type === 'text/csv' || /\.csv$/i.test(file.name) ? 'text/csv' : 'application/json';
}

function parseImportSummary(value: Json | undefined): ImportSummary {
  if (!isJsonObject(value)) throw new FormatError('import');
  const part = (key: string) => {
    const p = value[key];
    return isJsonObject(p) ? p : {};
  };
  return {
    dryRun: value.dry_run === true,
    medications: { added: num(part('medications').added), skipped: num(part('medications').skipped) },
    schedules: { added: num(part('schedules').added) },
    history: { added: num(part('history').added), skipped: num(part('history').skipped) },
  };
}

/** POST /api/import: with `dryRun` it only says what would happen. */
export async function importFile(file: File, dryRun: boolean): Promise<ImportSummary> {
  const response = await apiFileRequest(`/api/import${dryRun ? '?dry_run=true' : ''}`, {
    method: 'POST',
    body: file,
    contentType: importContentType(file),
  });
  let body: Json;
  try {
    body = (await response.json()) as Json;
  } catch {
    throw new FormatError('import');
  }
  return parseImportSummary(dataOf(body));
}

export async function getRetentionPreview(days: number, signal?: AbortSignal): Promise<RetentionPreview> {
  const data = dataOf(await apiRequest(`/api/medications/history/retention?days=${days}`, { signal }));
  if (!isJsonObject(data)) throw new FormatError('retention');
  return { days: num(data.days, days), cutoff: strOrNull(data.cutoff), entries: num(data.entries) };
}

export async function listBackups(signal?: AbortSignal): Promise<Backup[]> {
  const data = dataOf(await apiRequest('/api/backups', { signal }));
  if (!Array.isArray(data)) throw new FormatError('backups');
  return objects(data)
    .map((b) => ({ name: str(b.name), size: num(b.size), created_at: str(b.created_at) }))
    .filter((b) => b.name !== '');
}

function parseDataSettings(value: Json | undefined): DataSettings {
  if (!isJsonObject(value)) throw new FormatError('settings');
  return {
    defaultReminderTime: str(value.defaultReminderTime, '09:00'),
    autoBackup: typeof value.autoBackup === 'boolean' ? value.autoBackup : true,
    dataRetention: num(value.dataRetention),
  };
}

export async function getDataSettings(signal?: AbortSignal): Promise<DataSettings> {
  return parseDataSettings(dataOf(await apiRequest('/api/settings', { signal })));
}

/** PUT /api/settings with only the given ones; answers all three as saved. */
export async function saveDataSettings(changes: Partial<DataSettings>): Promise<DataSettings> {
  return parseDataSettings(dataOf(await apiRequest('/api/settings', { method: 'PUT', body: changes })));
}

function parseStock(value: Json | undefined): ReportStock | null {
  if (!isJsonObject(value)) return null;
  return {
    current_quantity: num(value.current_quantity),
    total_unit: str(value.total_unit),
    stock_status: oneOf(STOCK_STATUSES, value.stock_status, 'in_stock'),
    runs_out_on: strOrNull(value.runs_out_on),
  };
}

function parseReportMedication(value: Json): ReportMedication | null {
  if (!isJsonObject(value) || typeof value.id !== 'number') return null;
  return {
    id: value.id,
    name: str(value.name),
    unit: str(value.unit),
    frequency: oneOf(FREQUENCIES, value.frequency, 'daily'),
    default_quantity: num(value.default_quantity),
    color: oneOf(MEDICATION_COLORS, value.color, 'blue'),
    schedule: parseSchedule(value.schedule),
    stages: objects(value.stages).map((stage) => ({
      first_day: str(stage.first_day),
      last_day: str(stage.last_day),
      quantity: num(stage.quantity),
    })),
    last_day: strOrNull(value.last_day),
    inventory: parseStock(value.inventory),
    adherence: isJsonObject(value.adherence) ? parseTally(value.adherence) : null,
    usage: parseUsage(value.usage),
    over_limit: objects(value.over_limit).map((dose) => ({
      time: str(dose.time),
      limit: dose.limit === 'max_per_day' ? 'max_per_day' : 'min_gap',
    })),
  };
}

function parseUsage(value: Json | undefined): ReportUsage | null {
  if (!isJsonObject(value)) return null;
  return { taken: num(value.taken), days: num(value.days, 1), per_day: num(value.per_day) };
}

export interface ReportPeriod {
  from?: string;
  to?: string;
}

/** GET /api/report: a period's medications, adherence, stock and missed doses. */
export async function getReport(period: ReportPeriod, signal?: AbortSignal): Promise<Report> {
  const params = new URLSearchParams();
  if (period.from) params.set('from', period.from);
  if (period.to) params.set('to', period.to);
  const query = params.toString();
  const data = dataOf(await apiRequest(`/api/report${query ? `?${query}` : ''}`, { signal }));
  if (!isJsonObject(data)) throw new FormatError('report');
  return {
    from: str(data.from),
    to: str(data.to),
    generated_at: str(data.generated_at),
    timezone: str(data.timezone),
    totals: parseTally(data.totals),
    medications: Array.isArray(data.medications)
      ? data.medications.map(parseReportMedication).filter((m): m is ReportMedication => m !== null)
      : [],
    missed: objects(data.missed).map((m) => ({
      medication_name: str(m.medication_name),
      time: str(m.time),
      source: m.source === 'logged' ? 'logged' : 'unanswered',
    })),
  };
}

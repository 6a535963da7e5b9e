// The person's data as files and records (issue 11): export, import, the doctor report,
// daily backups, retention, and the settings that govern them.
import { apiFileRequest } from './client';
import { answer, api, callerHeaders } from './http';
import { FREQUENCIES, STOCK_STATUSES, type Frequency, type StockStatus, type Tally } from './medicationTypes';
import type { components } from './schema';

type Schemas = components['schemas'];

/** A file the server handed over, with the name it gave it. */
export interface DownloadedFile {
  blob: Blob;
  fileName: string;
}

export type ExportFormat = 'json' | 'csv' | 'fhir';

/** The server's upload limit for an import (it answers 413 above it). */
export const IMPORT_LIMIT_BYTES = 64 * 1024 * 1024;

/** What an import added and skipped (`dryRun`: what it would). */
export type ImportSummary = Omit<Schemas['Summary'], 'dry_run'> & { dryRun: boolean };

/**
 * What choosing a retention period deletes now (`entries`), and the instant before which
 * entries go (`cutoff`; null for "forever"): the document's Preview, with cutoff always set.
 */
export type RetentionPreview = Omit<Schemas['Preview'], 'cutoff'> & { cutoff: string | null };

/** One kept backup file (the document's Kept). */
export type Backup = Schemas['Kept'];

/** The three settings Settings → Medications and → Data Management change. */
export type DataSettings = Pick<Schemas['AppSettings'], 'defaultReminderTime' | 'autoBackup' | 'dataRetention'>;

export type ReportStock = Omit<Schemas['StockSummary'], 'runs_out_on' | 'stock_status'> & {
  runs_out_on: string | null;
  stock_status: StockStatus;
};

/** An as-needed medication's use over the period (the document's Usage). */
export type ReportUsage = Schemas['Usage'];

/** A dose taken over an as-needed limit (the document's OverLimitDose). */
export type OverLimitDose = Schemas['OverLimitDose'];

/** A medication of the report; `adherence` is null for an as-needed one (`usage` stands instead). */
export type ReportMedication = Omit<Schemas['MedicationLine'], 'inventory' | 'adherence' | 'frequency'> & {
  frequency: Frequency;
  inventory: ReportStock | null;
  adherence: Tally | null;
};

/** `source` "logged": marked missed by the person; "unanswered": scheduled and never logged. */
export type MissedDose = Schemas['MissedDose'];

export type Report = Omit<Schemas['Report'], 'totals' | 'medications'> & {
  totals: Tally;
  medications: ReportMedication[];
};

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

/** GET /api/export: the whole record as JSON, the history as CSV, or the record as FHIR R4. */
export function downloadExport(format: ExportFormat): Promise<DownloadedFile> {
  switch (format) {
    case 'csv':
      return download('/api/export?format=csv', 'pillbox-history.csv');
    case 'fhir':
      return download('/api/export?format=fhir', 'pillbox-fhir.json');
    default:
      return download('/api/export', 'pillbox-export.json');
  }
}

/** GET /api/backups/{name}: one of the kept daily exports. */
export function downloadBackup(name: string): Promise<DownloadedFile> {
  return download(`/api/backups/${encodeURIComponent(name)}`, name);
}

/** The history CSV goes up as CSV; anything else as the JSON export it should be. */
export function importContentType(file: File): string {
  return file.type === 'text/csv' || /\.csv$/i.test(file.name) ? 'text/csv' : 'application/json';
}


/**
 * `value` as one of `allowed`, for the fields the document calls plain strings: anything
 * else is a broken contract and fails the call rather than show a guess.
 */
function expectOneOf<T extends string>(allowed: readonly T[], value: string, what: string): T {
  const known = allowed.find((candidate) => candidate === value);
  if (known === undefined) throw new Error(`Unknown ${what} '${value}' in the report`);
  return known;
}

/** POST /api/import: with `dryRun` it only says what would happen. */
/** Whose file an import reads: Pillbox's own, MedTimer's CSVs, or a FHIR R4 bundle. */
export type ImportSource = 'pillbox' | 'medtimer' | 'fhir';

export interface ImportRequest {
  file: File;
  dryRun: boolean;
  source: ImportSource;
  /** Import another app's file without the rows the preview found unreadable. */
  skipUnreadable?: boolean;
}

export async function importFile({ file, dryRun, source, skipUnreadable = false }: ImportRequest): Promise<ImportSummary> {
  const query = new URLSearchParams();
  if (dryRun) query.set('dry_run', 'true');
  if (source !== 'pillbox') query.set('source', source);
  if (skipUnreadable) query.set('skip_unreadable', 'true');
  const asked = query.toString();
  const response = await apiFileRequest(`/api/import${asked === '' ? '' : `?${asked}`}`, {
    method: 'POST',
    body: file,
    contentType: importContentType(file),
  });
  // A file call (the body is the file), so openapi-fetch does not send it; the answer is the
  // document's all the same.
  const { data } = (await response.json()) as Schemas['MessageData_Summary'];
  const { dry_run, ...counts } = data;
  return { ...counts, dryRun: dry_run };
}

export async function getRetentionPreview(days: number, signal?: AbortSignal): Promise<RetentionPreview> {
  const params = { query: { days: String(days) } };
  const { data } = await answer(api.GET('/api/medications/history/retention', { headers: callerHeaders(), params, signal }));
  return { ...data, cutoff: data.cutoff ?? null };
}

export async function listBackups(signal?: AbortSignal): Promise<Backup[]> {
  return (await answer(api.GET('/api/backups', { headers: callerHeaders(), signal }))).data;
}

function dataSettingsOf({ defaultReminderTime, autoBackup, dataRetention }: Schemas['AppSettings']): DataSettings {
  return { defaultReminderTime, autoBackup, dataRetention };
}

export async function getDataSettings(signal?: AbortSignal): Promise<DataSettings> {
  return dataSettingsOf((await answer(api.GET('/api/settings', { headers: callerHeaders(), signal }))).data);
}

/** PUT /api/settings with only the given ones; answers all three as saved. */
export async function saveDataSettings(changes: Partial<DataSettings>): Promise<DataSettings> {
  return dataSettingsOf((await answer(api.PUT('/api/settings', { headers: callerHeaders(), body: changes }))).data);
}




export interface ReportPeriod {
  from?: string;
  to?: string;
}

/** GET /api/report: a period's medications, adherence, stock and missed doses. */
export async function getReport(period: ReportPeriod, signal?: AbortSignal): Promise<Report> {
  const query = { ...(period.from ? { from: period.from } : {}), ...(period.to ? { to: period.to } : {}) };
  const { data } = await answer(api.GET('/api/report', { headers: callerHeaders(), params: { query }, signal }));
  const tally = (t: Schemas['Adherence']): Tally => ({ ...t, rate: t.rate ?? null });
  const stock = (s: Schemas['StockSummary']): ReportStock => ({
    ...s,
    runs_out_on: s.runs_out_on ?? null,
    stock_status: expectOneOf(STOCK_STATUSES, s.stock_status, 'stock status'),
  });
  return {
    ...data,
    totals: tally(data.totals),
    medications: data.medications.map((m) => ({
      ...m,
      frequency: expectOneOf(FREQUENCIES, m.frequency, 'frequency'),
      inventory: m.inventory ? stock(m.inventory) : null,
      adherence: m.adherence ? tally(m.adherence) : null,
    })),
  };
}

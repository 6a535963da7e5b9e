// Dates, times and amounts as the person's app settings ask (SPEC §3 "Local app settings").
import type { DateFormat, TimeFormat } from '../settings/appSettings';
import { currentZoneName } from './zoneNames';

const LOCALES: Record<string, string> = { en: 'en-US', es: 'es-ES', fr: 'fr-FR', de: 'de-DE' };

export function localeOf(language: string): string {
  return LOCALES[language] ?? 'en-US';
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** Whether the language's clock runs to 24 hours (de, fr, es) or 12 with AM/PM (en). */
export function usesTwentyFourHours(language: string): boolean {
  const { hourCycle } = new Intl.DateTimeFormat(localeOf(language), { hour: 'numeric' }).resolvedOptions();
  return hourCycle === 'h23' || hourCycle === 'h24';
}

/** The clock a time is written with: the chosen one, else the language's. */
function clockOf(format: TimeFormat, language: string): '12h' | '24h' {
  if (format !== 'auto') return format;
  return usesTwentyFourHours(language) ? '24h' : '12h';
}

function ymd(year: number, month: number, day: number, format: DateFormat, language: string): string {
  const [y, m, d] = [String(year).padStart(4, '0'), pad(month), pad(day)];
  switch (format) {
    case 'auto':
      // The language's short numeric date: 11/26/2026, 26.11.2026, 26/11/2026.
      return new Intl.DateTimeFormat(localeOf(language), {
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        timeZone: 'UTC',
      }).format(Date.UTC(year, month - 1, day));
    case 'dd/MM/yyyy':
      return `${d}/${m}/${y}`;
    case 'yyyy-MM-dd':
      return `${y}-${m}-${d}`;
    default:
      return `${m}/${d}/${y}`;
  }
}

/** A moment's local calendar date in the chosen format (`auto`: the language's). */
export function formatDate(date: Date, format: DateFormat, language = 'en'): string {
  return ymd(date.getFullYear(), date.getMonth() + 1, date.getDate(), format, language);
}

/** A plain "YYYY-MM-DD" date (no time zone) in the chosen format; other text unchanged. */
export function formatPlainDate(text: string, format: DateFormat, language = 'en'): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return text;
  return ymd(Number(match[1]), Number(match[2]), Number(match[3]), format, language);
}

/**
 * "HH:MM" (24-hour) as the person reads times: 08:00, or 8:00 AM in their language; `auto`
 * takes the language's clock (8:00 AM in English, 08:00 in German).
 */
export function formatTimeOfDay(text: string, format: TimeFormat, language: string): string {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!match) return text;
  const [hours, minutes] = [Number(match[1]), Number(match[2])];
  if (clockOf(format, language) === '24h') return `${pad(hours)}:${pad(minutes)}`;
  return new Intl.DateTimeFormat(localeOf(language), {
    hour: 'numeric',
    minute: '2-digit',
    hour12: true,
    timeZone: 'UTC',
  }).format(Date.UTC(2000, 0, 1, hours, minutes));
}

/** A moment's local time of day. */
export function formatTime(date: Date, format: TimeFormat, language: string): string {
  return formatTimeOfDay(`${date.getHours()}:${pad(date.getMinutes())}`, format, language);
}

export interface DateTimeSettings {
  dateFormat: DateFormat;
  timeFormat: TimeFormat;
}

/** An RFC 3339 instant as local date and time, e.g. "11/21/2026 8:05 AM". */
export function formatDateTime(instant: string, settings: DateTimeSettings, language: string): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  return `${formatDate(date, settings.dateFormat, language)} ${formatTime(date, settings.timeFormat, language)}`;
}

/** The local date as a date input holds it ("YYYY-MM-DD"). */
export function dateInputValue(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The local time as a time input holds it ("HH:MM"). */
export function timeInputValue(date: Date): string {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A local date ("YYYY-MM-DD") and time ("HH:MM") as a moment; null when either is unusable. */
export function localMoment(date: string, time: string): Date | null {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const t = /^(\d{2}):(\d{2})$/.exec(time);
  if (!d || !t) return null;
  const moment = new Date(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(t[1]), Number(t[2]));
  return Number.isNaN(moment.getTime()) ? null : moment;
}

/** Amounts keep up to 3 decimals, grouped and punctuated for the language. */
export function formatQuantity(value: number, language: string): string {
  return new Intl.NumberFormat(localeOf(language), { maximumFractionDigits: 3 }).format(value);
}

/** A share (0…1) as a whole percentage. */
export function formatPercent(rate: number, language: string): string {
  return new Intl.NumberFormat(localeOf(language), { style: 'percent', maximumFractionDigits: 0 }).format(rate);
}

/** The browser's IANA time zone under today's name (Asia/Kolkata, not Asia/Calcutta), or null when it cannot say. */
export function browserTimeZone(): string | null {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return typeof zone === 'string' && zone !== '' ? currentZoneName(zone) : null;
  } catch {
    return null;
  }
}

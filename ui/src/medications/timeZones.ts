// Time zones as a person picks them: today's names, each with its offset from UTC now.

import { currentZoneName } from './zoneNames';

export { currentZoneName };

// A formatter per zone is what costs (about 400 zones in the list): each offset is worked out
// once per zone and hour, then kept.
const offsets = new Map<string, string | null>();

/** The zone's offset from UTC at `at`, as "+05:30" or "-04:00"; null for a zone the browser does not know. */
export function utcOffset(zone: string, at: Date): string | null {
  const key = `${zone}|${Math.floor(at.getTime() / 3_600_000)}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const offset = offsetNow(zone, at);
  offsets.set(key, offset);
  return offset;
}

function offsetNow(zone: string, at: Date): string | null {
  try {
    const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value;
    if (name === undefined) return null;
    // "GMT+05:30", "GMT-04:00", or "GMT" for UTC itself.
    const match = /^GMT(?:([+-])(\d{1,2})(?::(\d{2}))?)?$/.exec(name);
    if (!match) return null;
    if (match[1] === undefined) return '+00:00';
    return `${match[1]}${(match[2] ?? '0').padStart(2, '0')}:${match[3] ?? '00'}`;
  } catch {
    return null;
  }
}

/** "(UTC+05:30) Asia/Kolkata": the zone's current name with its offset now. */
export function zoneLabel(zone: string, at: Date): string {
  const name = currentZoneName(zone);
  return labelOf(name, utcOffset(name, at) ?? utcOffset(zone, at));
}

function labelOf(name: string, offset: string | null): string {
  return offset === null ? name : `(UTC${offset}) ${name}`;
}

/** Minutes east of UTC of an offset written "+05:30"; 0 when unknown, to sort it among UTC. */
function offsetMinutes(offset: string | null): number {
  const match = offset === null ? null : /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

export interface ZoneOption {
  /** The zone's current name: what is saved. */
  zone: string;
  /** "(UTC+05:30) Asia/Kolkata". */
  label: string;
}

/**
 * Every zone the browser knows under today's names, plus the stored one and this device's,
 * west to east and by name within an offset.
 */
export function zoneOptions(known: readonly string[], extra: readonly (string | null)[], at: Date): ZoneOption[] {
  const zones = new Set<string>(['UTC']);
  for (const zone of [...known, ...extra]) if (zone) zones.add(currentZoneName(zone));
  return [...zones]
    .map((zone) => {
      const offset = utcOffset(zone, at);
      return { zone, label: labelOf(zone, offset), minutes: offsetMinutes(offset) };
    })
    .sort((a, b) => a.minutes - b.minutes || a.zone.localeCompare(b.zone))
    .map(({ zone, label }) => ({ zone, label }));
}

/** The browser's list of zones (older browsers list none). */
export function browserZones(): readonly string[] {
  return typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
}

/** Folds a search or a label so "new york", "New_York" and "utc+5:30" find what they mean. */
function folded(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[_/]/g, ' ')
    .replace(/\+0(\d)/g, '+$1')
    .replace(/-0(\d)/g, '-$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The options whose label holds every word searched for; all of them for an empty search. */
export function filterZones(options: readonly ZoneOption[], search: string): ZoneOption[] {
  const words = folded(search).split(' ').filter((word) => word !== '');
  if (words.length === 0) return [...options];
  return options.filter((option) => {
    const label = folded(option.label);
    return words.every((word) => label.includes(word));
  });
}

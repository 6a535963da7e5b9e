// What a new time zone does to each schedule: wall-clock doses stay at the same time of day
// (so they move in absolute time), elapsed ones keep their moments (so their local times
// shift by the difference between the zones).
import type { Medication } from '../api/medicationTypes';

export interface TravelEffect {
  /** Same local time in the new zone. */
  sameTime: string[];
  /** Same moments, so the local times shift. */
  keepInterval: string[];
}

export function travelEffect(medications: Pick<Medication, 'name' | 'frequency' | 'schedule'>[]): TravelEffect {
  const scheduled = medications.filter((m) => m.frequency !== 'as_needed');
  const byName = (a: string, b: string) => a.localeCompare(b);
  return {
    sameTime: scheduled.filter((m) => m.schedule.clock !== 'elapsed').map((m) => m.name).sort(byName),
    keepInterval: scheduled.filter((m) => m.schedule.clock === 'elapsed').map((m) => m.name).sort(byName),
  };
}

/** A zone's offset from UTC at `when`, in minutes; null for a zone the browser does not know. */
export function zoneOffsetMinutes(zone: string, when: Date): number | null {
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(when);
    const name = parts.find((part) => part.type === 'timeZoneName')?.value ?? '';
    if (name === 'GMT') return 0;
    const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
    if (!match) return null;
    const minutes = Number(match[2]) * 60 + Number(match[3]);
    return match[1] === '-' ? -minutes : minutes;
  } catch {
    return null;
  }
}

/** "+6 h", "-5 h 30 min", "0 h": how local times of kept moments move from one zone to another. */
export function shiftText(from: string, to: string, when: Date): string | null {
  const a = zoneOffsetMinutes(from, when);
  const b = zoneOffsetMinutes(to, when);
  if (a === null || b === null) return null;
  const diff = b - a;
  const sign = diff < 0 ? '-' : '+';
  const hours = Math.floor(Math.abs(diff) / 60);
  const minutes = Math.abs(diff) % 60;
  if (diff === 0) return '0 h';
  return `${sign}${hours} h${minutes === 0 ? '' : ` ${minutes} min`}`;
}

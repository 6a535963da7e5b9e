// The 30-day adherence chart's geometry (drawn as plain SVG on History).
import type { DailyTally } from '../api/medicationTypes';

export const CHART_HEIGHT = 96;
export const CHART_STATUSES = ['taken', 'skipped', 'missed'] as const;

export interface BarSegment {
  status: (typeof CHART_STATUSES)[number];
  y: number;
  height: number;
}

/** The stacked segments of one day's bar (taken at the bottom), scaled to the busiest day. */
export function barSegments(day: DailyTally, busiest: number, height = CHART_HEIGHT): BarSegment[] {
  if (busiest <= 0) return [];
  let top = height;
  const segments: BarSegment[] = [];
  for (const status of CHART_STATUSES) {
    const h = (day[status] / busiest) * height;
    if (h <= 0) continue;
    top -= h;
    segments.push({ status, y: top, height: h });
  }
  return segments;
}

import { describe, expect, it } from 'vitest';
import type { Medication } from '../api/medicationTypes';
import { shiftText, travelEffect, zoneOffsetMinutes } from './travel';

const med = (name: string, frequency: Medication['frequency'], clock: 'wall' | 'elapsed') =>
  ({ name, frequency, schedule: { clock } }) as Pick<Medication, 'name' | 'frequency' | 'schedule'>;

describe('travel', () => {
  it('splits schedules into those that stay at their time of day and those that keep their interval', () => {
    expect(
      travelEffect([
        med('Vitamin D', 'daily', 'wall'),
        med('Dolutegravir', 'daily', 'elapsed'),
        med('Aspirin', 'weekly', 'wall'),
        med('Paracetamol', 'as_needed', 'wall'),
      ]),
    ).toEqual({ sameTime: ['Aspirin', 'Vitamin D'], keepInterval: ['Dolutegravir'] });
  });

  it('says how far kept moments move on the clock', () => {
    const winter = new Date('2026-01-15T12:00:00Z');
    expect(zoneOffsetMinutes('Europe/Berlin', winter)).toBe(60);
    expect(zoneOffsetMinutes('Not/AZone', winter)).toBeNull();
    expect(shiftText('Europe/Berlin', 'America/New_York', winter)).toBe('-6 h');
    expect(shiftText('UTC', 'Asia/Kolkata', winter)).toBe('+5 h 30 min');
    expect(shiftText('UTC', 'UTC', winter)).toBe('0 h');
  });
});

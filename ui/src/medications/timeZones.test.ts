import { describe, expect, it } from 'vitest';
import { currentZoneName, filterZones, utcOffset, zoneLabel, zoneOptions } from './timeZones';

const WINTER = new Date(Date.UTC(2026, 0, 15, 12));
const SUMMER = new Date(Date.UTC(2026, 6, 15, 12));

describe('time zone names', () => {
  it('are today’s, not the old ones browsers still list', () => {
    expect(currentZoneName('Asia/Calcutta')).toBe('Asia/Kolkata');
    expect(currentZoneName('Europe/Kiev')).toBe('Europe/Kyiv');
    expect(currentZoneName('Asia/Saigon')).toBe('Asia/Ho_Chi_Minh');
    expect(currentZoneName('Europe/Berlin')).toBe('Europe/Berlin');
  });
});

describe('time zone labels', () => {
  it('show the offset from UTC at that moment, with the current name', () => {
    expect(zoneLabel('Asia/Calcutta', WINTER)).toBe('(UTC+05:30) Asia/Kolkata');
    expect(zoneLabel('Europe/Kiev', SUMMER)).toBe('(UTC+03:00) Europe/Kyiv');
    expect(zoneLabel('America/New_York', WINTER)).toBe('(UTC-05:00) America/New_York');
    expect(zoneLabel('America/New_York', SUMMER)).toBe('(UTC-04:00) America/New_York');
    expect(zoneLabel('UTC', WINTER)).toBe('(UTC+00:00) UTC');
    expect(zoneLabel('Asia/Kathmandu', WINTER)).toBe('(UTC+05:45) Asia/Kathmandu');
  });

  it('leave out an offset the browser cannot tell', () => {
    expect(utcOffset('Not/AZone', WINTER)).toBeNull();
    expect(zoneLabel('Not/AZone', WINTER)).toBe('Not/AZone');
  });
});

describe('the list of zones', () => {
  const options = zoneOptions(['Europe/Kiev', 'Asia/Calcutta', 'America/New_York', 'Europe/Berlin'], ['Europe/Kyiv', null], WINTER);

  it('holds each zone once under its current name, west to east', () => {
    expect(options.map((option) => option.zone)).toEqual([
      'America/New_York',
      'UTC',
      'Europe/Berlin',
      'Europe/Kyiv',
      'Asia/Kolkata',
    ]);
  });

  it('is filtered by any part of the name or the offset', () => {
    const zones = (search: string) => filterZones(options, search).map((option) => option.zone);
    expect(zones('kolk')).toEqual(['Asia/Kolkata']);
    expect(zones('new york')).toEqual(['America/New_York']);
    expect(zones('+05:30')).toEqual(['Asia/Kolkata']);
    expect(zones('utc+5:30')).toEqual(['Asia/Kolkata']);
    expect(zones('europe')).toEqual(['Europe/Berlin', 'Europe/Kyiv']);
    expect(zones('  ')).toHaveLength(5);
    expect(zones('Atlantis')).toEqual([]);
  });
});

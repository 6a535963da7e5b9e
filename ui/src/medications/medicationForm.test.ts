import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { medication } from '../test/medications';
import { problemText } from './errors';
import {
  emptyMedicationForm,
  gapFormOf,
  gapMinutes,
  hasMoreOptions,
  medicationFormOf,
  medicationInput,
  medicationProblem,
  timeToAdd,
  type MedicationForm,
  type RulesForm,
} from './medicationForm';

const t = i18n.getFixedT('en', 'meds');

function form(changes: Partial<MedicationForm> = {}, rules: Partial<RulesForm> = {}): MedicationForm {
  const base = { ...emptyMedicationForm(), name: 'Amoxicillin', ...changes };
  return { ...base, rules: { ...base.rules, ...rules } };
}

const problem = (f: MedicationForm) => {
  const found = medicationProblem(f);
  return found && problemText(t, found);
};

describe('schedule rules in the medication form', () => {
  it('a new plain medication sends no rules', () => {
    expect(medicationInput(form({ times: ['08:00'] }), true).schedule).toEqual({ times: ['08:00'], weekdays: [] });
  });

  it('an edit names every rule so that one switched off is cleared', () => {
    const schedule = medicationInput(form({ times: ['08:00'] }), false).schedule;
    expect(schedule).toMatchObject({
      interval_hours: null,
      every_days: null,
      cycle_on_days: null,
      end_date: null,
      steps: [],
      clock: null,
      grace_minutes: null,
      repeat_every_minutes: null,
      repeat_times: null,
    });
  });

  it('every 8 hours sends only the first time as the anchor', () => {
    const schedule = medicationInput(form({ times: ['06:00', '14:00'] }, { intervalHours: '8' }), true).schedule;
    expect(schedule).toEqual({ times: ['06:00'], weekdays: [], interval_hours: 8 });
  });

  it('a cycle, an end date, steps, a clock, grace and own follow-ups', () => {
    const f = form(
      { times: ['21:00'], startDate: '2026-11-01' },
      {
        dayPattern: 'cycle',
        cycleOnDays: '21',
        cycleOffDays: '7',
        endDate: '2026-12-31',
        steps: [
          { days: '5', quantity: '40' },
          { days: '5', quantity: '30' },
        ],
        clock: 'elapsed',
        graceMinutes: '90',
        ownFollowUps: true,
        repeatEveryMinutes: '15',
        repeatTimes: '2',
      },
    );
    expect(problem(f)).toBeNull();
    expect(medicationInput(f, true).schedule).toEqual({
      times: ['21:00'],
      weekdays: [],
      start_date: '2026-11-01',
      cycle_on_days: 21,
      cycle_off_days: 7,
      end_date: '2026-12-31',
      steps: [
        { days: 5, quantity: 40 },
        { days: 5, quantity: 30 },
      ],
      clock: 'elapsed',
      grace_minutes: 90,
      repeat_every_minutes: 15,
      repeat_times: 2,
    });
  });

  it('as needed sends its limits and nothing a schedule needs', () => {
    const f = form({ frequency: 'as_needed', times: ['08:00'] }, { maxPerDay: '4', minGapHours: '4', minGapMinutes: '0', intervalHours: '8' });
    expect(medicationInput(f, false).schedule).toMatchObject({
      times: [],
      interval_hours: null,
      max_per_day: 4,
      min_gap_minutes: 240,
      grace_minutes: null,
    });
  });

  it('says which number is out of range before the server does', () => {
    expect(problem(form({}, { intervalHours: '25' }))).toBe('Every N hours: enter a whole number from 1 to 24');
    expect(problem(form({}, { dayPattern: 'every_n_days', everyDays: '0' }))).toBe(
      'Every how many days: enter a whole number from 1 to 366',
    );
    expect(problem(form({ frequency: 'as_needed' }, { maxPerDay: '2.5' }))).toBe(
      'Most doses in 24 hours: enter a whole number from 1 to 48',
    );
    expect(problem(form({}, { steps: [{ days: '3', quantity: '-1' }] }))).toBe(
      'Please enter a valid positive number for the dosage amount',
    );
    expect(problem(form({ startDate: '2026-11-10' }, { endDate: '2026-11-09' }))).toBe(
      'The end date must be on or after the start date',
    );
  });

  it('reads a medication back, and opens More schedule options only when it uses them', () => {
    const plain = medicationFormOf(medication());
    expect(hasMoreOptions(plain)).toBe(false);
    expect(plain.rules.clock).toBe('');
    const interval = medicationFormOf(
      medication({
          schedule: {
            times: ['06:00'],
            weekdays: [],
            start_date: '2026-11-01',
            effective_times: ['06:00', '14:00', '22:00'],
            effective_weekdays: [],
            interval_hours: 8,
            clock: 'elapsed',
            grace_minutes: 60,
            steps: [],
            repeat_every_minutes: 20,
            repeat_times: null,
          },
        }),
    );
    expect(interval.rules).toMatchObject({ intervalHours: '8', clock: '', ownFollowUps: true, repeatEveryMinutes: '20' });
    expect(hasMoreOptions(interval)).toBe(true);
  });
});

describe('a second time of day', () => {
  it('starts 12 hours after the first', () => {
    expect(timeToAdd(['08:00'], '09:00')).toBe('20:00');
    expect(timeToAdd(['21:30'], '09:00')).toBe('09:30');
    expect(timeToAdd(['12:00'], '09:00')).toBe('00:00');
  });

  it('a first time, or one after the second, starts at the default reminder time once', () => {
    expect(timeToAdd([], '09:00')).toBe('09:00');
    expect(timeToAdd([''], '09:00')).toBe('09:00');
    expect(timeToAdd(['08:00', '20:00'], '09:00')).toBe('09:00');
    expect(timeToAdd(['09:00', '21:00'], '09:00')).toBe('');
  });
});

describe('the least time between as-needed doses', () => {
  it('is entered in hours and minutes and sent in minutes', () => {
    const sent = (minGapHours: string, minGapMinutes: string) =>
      medicationInput(form({ frequency: 'as_needed' }, { minGapHours, minGapMinutes }), false).schedule?.min_gap_minutes;
    expect(sent('4', '0')).toBe(240);
    expect(sent('1', '30')).toBe(90);
    expect(sent('', '45')).toBe(45);
    expect(sent('6', '')).toBe(360);
    expect(sent('', '')).toBeNull();
  });

  it('is shown in hours and minutes', () => {
    expect(gapFormOf(240)).toEqual({ minGapHours: '4', minGapMinutes: '0' });
    expect(gapFormOf(90)).toEqual({ minGapHours: '1', minGapMinutes: '30' });
    expect(gapFormOf(null)).toEqual({ minGapHours: '', minGapMinutes: '' });
    expect(gapMinutes(gapFormOf(1440))).toBe(1440);
    const read = medicationFormOf(
      medication({
          frequency: 'as_needed',
          schedule: {
            times: [],
            weekdays: [],
            start_date: '2026-11-01',
            effective_times: [],
            effective_weekdays: [],
            min_gap_minutes: 150,
            max_per_day: 3,
            steps: [],
          },
        }),
    );
    expect(read.rules).toMatchObject({ maxPerDay: '3', minGapHours: '2', minGapMinutes: '30' });
  });

  it('says what is wrong before the server does', () => {
    const gap = (minGapHours: string, minGapMinutes: string) =>
      problem(form({ frequency: 'as_needed' }, { minGapHours, minGapMinutes }));
    expect(gap('1', '75')).toBe('Minutes between doses: enter a whole number from 0 to 59');
    expect(gap('25', '0')).toBe('Hours between doses: enter a whole number from 0 to 24');
    expect(gap('1.5', '')).toBe('Hours between doses: enter a whole number from 0 to 24');
    expect(gap('0', '0')).toBe('Least time between doses: enter from 1 minute to 24 hours');
    expect(gap('24', '30')).toBe('Least time between doses: enter from 1 minute to 24 hours');
    expect(gap('24', '0')).toBeNull();
  });
});

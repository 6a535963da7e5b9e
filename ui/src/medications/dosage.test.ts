import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { defaultDoseQuantity, dosageProblem, entryCorrectionProblem, historicalEntryProblem } from './dosage';
import { problemText } from './errors';

const t = i18n.getFixedT('en', 'meds');
const text = (problem: ReturnType<typeof dosageProblem>) => (problem ? problemText(t, problem) : null);

describe('dosage confirmation (SPEC §5)', () => {
  it('asks for an amount first', () => {
    expect(text(dosageProblem('', 'mg'))).toBe('Please enter a dosage amount');
    expect(text(dosageProblem('   ', ''))).toBe('Please enter a dosage amount');
  });

  it('asks for a unit from the catalogue', () => {
    expect(text(dosageProblem('1', ''))).toBe('Please select a unit');
    expect(text(dosageProblem('1', ' '))).toBe('Unit is required');
    expect(text(dosageProblem('1', 'spoons'))).toBe("Unit 'spoons' is not a valid medical unit");
    expect(dosageProblem('1', 'mcg')).toBeNull();
  });

  it('wants a positive number with at most 3 decimals', () => {
    const positive = 'Please enter a valid positive number for the dosage amount';
    expect(text(dosageProblem('0', 'mg'))).toBe(positive);
    expect(text(dosageProblem('-2', 'mg'))).toBe(positive);
    expect(text(dosageProblem('abc', 'mg'))).toBe(positive);
    expect(text(dosageProblem('0.0001', 'mg'))).toBe('Please use at most 3 decimal places');
    expect(dosageProblem('0.001', 'mg')).toBeNull();
    expect(dosageProblem('2.5', 'tablets')).toBeNull();
  });

  it("starts at the medication's default, else 1", () => {
    expect(defaultDoseQuantity(2.5)).toBe('2.5');
    expect(defaultDoseQuantity(0)).toBe('1');
    expect(defaultDoseQuantity(null)).toBe('1');
  });

  it('speaks the other languages too', () => {
    const fr = i18n.getFixedT('fr', 'meds');
    const problem = dosageProblem('', 'mg');
    expect(problem && problemText(fr, problem)).toBe('Veuillez saisir une quantité');
  });
});

describe('historical entry (SPEC §5)', () => {
  const now = new Date(2026, 10, 21, 12, 0);
  const fields = { medicationId: '3', date: '2026-11-21', time: '08:00', quantity: '1', unit: 'tablets' };
  const problem = (changes: Partial<typeof fields>) => text(historicalEntryProblem({ ...fields, ...changes }, now));

  it('needs a medication, then both date and time', () => {
    expect(problem({ medicationId: '' })).toBe('Please select a medication');
    expect(problem({ date: '' })).toBe('Please select both date and time');
    expect(problem({ time: '' })).toBe('Please select both date and time');
  });

  it('refuses future dates, also later today', () => {
    expect(problem({ date: '2026-11-22' })).toBe('Cannot add entries for future dates');
    expect(problem({ time: '12:01' })).toBe('Cannot add entries for future dates');
    expect(problem({ time: '12:00' })).toBeNull();
    expect(problem({ date: '2025-01-01', time: '23:59' })).toBeNull();
  });

  it('applies the dosage rules', () => {
    expect(problem({ quantity: '' })).toBe('Please enter a dosage amount');
    expect(problem({ unit: '' })).toBe('Please select a unit');
    expect(problem({ quantity: '-1' })).toBe('Please enter a valid positive number for the dosage amount');
  });
});

describe('a corrected history entry', () => {
  const now = new Date(2026, 10, 21, 12, 0);
  const fields = { date: '2026-11-21', time: '08:00', quantity: '3', unit: 'tablets' };
  const problem = (changes: Partial<typeof fields>) => text(entryCorrectionProblem({ ...fields, ...changes }, now));

  it('keeps a time, never in the future, and a valid amount', () => {
    expect(problem({})).toBeNull();
    expect(problem({ time: '' })).toBe('Please select both date and time');
    expect(problem({ time: '12:30' })).toBe('Cannot add entries for future dates');
    expect(problem({ quantity: '0' })).toBe('Please enter a valid positive number for the dosage amount');
    expect(problem({ unit: 'spoons' })).toBe("Unit 'spoons' is not a valid medical unit");
  });
});

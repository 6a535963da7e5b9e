import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { problemText } from './errors';
import { unitCatalogue } from './unitCatalogue';
import {
  UnitConversionError,
  convertUnit,
  findUnit,
  formatConversion,
  stockUsage,
  unitProblem,
} from './units';

const t = i18n.getFixedT('en', 'meds');

describe('unit catalogue', () => {
  it('is the server\'s list (SPEC §3 "Unit catalogue entry"), as GET /api/units answers', () => {
    const of = (category: string) => unitCatalogue().filter((u) => u.category === category).map((u) => u.symbol);
    expect(of('weight')).toEqual(['mg', 'μg', 'g', 'kg']);
    expect(of('volume')).toEqual(['ml', 'l', 'μl']);
    expect(of('count')).toEqual(['tablets', 'capsules', 'pills', 'units', 'drops']);
    expect(of('concentration')).toEqual(['%', 'mg/ml', 'μg/ml', 'g/l']);
    expect(unitCatalogue()).toHaveLength(16);
    for (const unit of unitCatalogue()) {
      expect(unit.convertible, unit.symbol).toBe(unit.category === 'weight' || unit.category === 'volume');
      expect(Object.keys(unit).sort()).toEqual(
        ['aliases', 'category', 'convertible', 'description', 'exponent', 'name', 'symbol'].sort(),
      );
    }
    expect(findUnit('μg')?.aliases).toEqual(['mcg']);
    expect(findUnit('μl')?.aliases).toEqual(['mcl']);
  });

  it('finds units by alias, by micro sign and regardless of case', () => {
    expect(findUnit('mcg')?.symbol).toBe('μg');
    expect(findUnit('mcl')?.symbol).toBe('μl');
    expect(findUnit('\u00b5g')?.symbol).toBe('μg');
    expect(findUnit(' ML ')?.symbol).toBe('ml');
    expect(findUnit('teaspoons')).toBeUndefined();
    expect(findUnit('')).toBeUndefined();
  });

  it('checks units with the spec messages', () => {
    expect(problemText(t, unitProblem('') ?? { key: '' })).toBe('Unit is required');
    expect(problemText(t, unitProblem('spoons') ?? { key: '' })).toBe("Unit 'spoons' is not a valid medical unit");
    expect(unitProblem('mcg')).toBeNull();
  });
});

describe('unit conversion (SPEC §5, §9)', () => {
  it('converts weight in steps of 1000, aliases included', () => {
    expect(convertUnit(1, 'g', 'mg')).toBe(1000);
    expect(convertUnit(1500, 'mg', 'g')).toBe(1.5);
    expect(convertUnit(250, 'mcg', 'mg')).toBe(0.25);
    expect(convertUnit(1, 'mg', 'μg')).toBe(1000);
    expect(convertUnit(1, 'kg', 'mg')).toBe(1_000_000);
    expect(convertUnit(0.002, 'kg', 'g')).toBe(2);
  });

  it('converts volume, aliases included', () => {
    expect(convertUnit(2.5, 'l', 'ml')).toBe(2500);
    expect(convertUnit(500, 'mcl', 'ml')).toBe(0.5);
    expect(convertUnit(0.001, 'l', 'μl')).toBe(1000);
    expect(convertUnit(3, 'ml', 'ml')).toBe(3);
  });

  it('keeps thousandths, as the server does', () => {
    expect(convertUnit(1, 'μg', 'g')).toBe(0);
    expect(convertUnit(500, 'μg', 'g')).toBe(0.001);
  });

  it('converts only between units of one convertible category', () => {
    expect(() => convertUnit(1, 'mg', 'ml')).toThrow('Cannot convert between mg and ml');
    expect(() => convertUnit(1, 'tablets', 'capsules')).toThrow('Cannot convert between tablets and capsules');
    expect(() => convertUnit(1, 'mg/ml', 'g/l')).toThrow('Cannot convert between mg/ml and g/l');
    expect(() => convertUnit(1, 'mcg', 'mcl')).toThrow('Cannot convert between μg and μl');
    expect(convertUnit(2, 'tablets', 'tablets')).toBe(2);
    expect(() => convertUnit(1, 'mg', 'spoons')).toThrow('Invalid unit specified');
    expect(() => convertUnit(1, '', 'mg')).toThrow(UnitConversionError);
  });

  it('translates its errors', () => {
    const de = i18n.getFixedT('de', 'meds');
    const caught = (() => {
      try {
        return convertUnit(1, 'mg', 'ml');
      } catch (error) {
        return error;
      }
    })();
    expect(caught).toBeInstanceOf(UnitConversionError);
    const { problem } = caught as UnitConversionError;
    expect(problemText(t, problem)).toBe('Cannot convert between mg and ml');
    expect(problemText(de, problem)).toBe('Umrechnung zwischen mg und ml nicht möglich');
  });

  it('displays a converted amount with 3 decimals', () => {
    expect(formatConversion(convertUnit(250, 'mcg', 'mg'))).toBe('0.250');
    expect(formatConversion(convertUnit(1, 'g', 'mg'))).toBe('1000.000');
    expect(formatConversion(convertUnit(1.5, 'ml', 'l'))).toBe('0.002');
  });
});

describe('what a dose takes from the stock', () => {
  const tablets = { inventory_type: 'discrete' as const, total_unit: 'tablets', item_strength: 500 };

  it('counts in the stock unit, or through the strength of one tablet', () => {
    expect(stockUsage(2, 'tablets', 'mg', tablets)).toBe(2);
    expect(stockUsage(1000, 'mg', 'mg', tablets)).toBe(2);
    expect(stockUsage(1, 'g', 'mg', tablets)).toBe(2);
    expect(stockUsage(5, 'ml', 'ml', { inventory_type: 'continuous', total_unit: 'l', item_strength: null })).toBe(
      0.005,
    );
  });

  it('refuses what the stock cannot count', () => {
    expect(() => stockUsage(1, 'ml', 'mg', tablets)).toThrow('Cannot convert between ml and tablets');
    expect(() => stockUsage(1, 'mg', 'mg', { ...tablets, item_strength: null })).toThrow(
      'Cannot convert between mg and tablets',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { checkTranslations } from '../../test/translations';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fr from './fr.json';

const english = checkTranslations('medication screen', { en, es, fr, de }, { plurals: true });

describe('medication screen texts', () => {
  it('keeps the spec texts in English', () => {
    expect(english['medications.empty']).toBe('No medications');
    expect(english['add.button']).toBe('Add Medication');
    expect(english['today.empty']).toBe('No medications scheduled');
    expect(english['today.addMedications']).toBe('Add Medications');
    expect(english['today.loggedButton']).toBe('Logged!');
    expect(english['today.errorHeading']).toBe('Error logging dosage');
    expect(english['historical.button']).toBe('Add Historical Entry');
    expect(english['delete.withHistory']).toBe('Also delete its history');
    expect(english['stock.status.out_of_stock']).toBe('Out of stock');
    expect(english['stock.status.low']).toBe('Low stock');
    expect(english['stock.status.in_stock']).toBe('In stock');
    expect(english['validation.futureDate']).toBe('Cannot add entries for future dates');
    expect(english['errors.logDose']).toBe('Failed to log dosage');
    expect(english['errors.load']).toBe('Failed to load medications');
    expect(english['errors.loadHistory']).toBe('Failed to load medication history');
  });
});

import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { problemText } from './errors';
import {
  emptyInventoryForm,
  formTotal,
  inventoryInput,
  inventoryProblem,
  strengthRequired,
  type InventoryForm,
} from './inventoryForm';

const t = i18n.getFixedT('en', 'meds');
const blisters: InventoryForm = {
  ...emptyInventoryForm('tablets'),
  enabled: true,
  containerQuantity: '3',
  itemQuantity: '10',
};
const vials: InventoryForm = {
  ...emptyInventoryForm('ml'),
  enabled: true,
  containerType: 'vial',
  containerQuantity: '2',
  containerSize: '10',
};
const problem = (form: InventoryForm) => {
  const found = inventoryProblem(form);
  return found ? problemText(t, found) : null;
};

describe('inventory form (SPEC §5 "Medication forms")', () => {
  it('starts counted for tablets and measured for liquids', () => {
    expect(emptyInventoryForm('tablets')).toMatchObject({
      type: 'discrete',
      containerType: 'blister_pack',
      itemUnit: 'tablets',
      threshold: '10',
    });
    expect(emptyInventoryForm('ml')).toMatchObject({
      type: 'continuous',
      containerType: 'bottle',
      containerUnit: 'ml',
    });
  });

  it('accepts complete stock and does not check stock that is off', () => {
    expect(problem(blisters)).toBeNull();
    expect(problem(vials)).toBeNull();
    expect(problem({ ...emptyInventoryForm('tablets'), enabled: false })).toBeNull();
  });

  it('requires the fields of each type', () => {
    expect(problem({ ...vials, containerSize: '' })).toBe(
      'Container quantity, size, and unit are required for continuous inventory',
    );
    expect(problem({ ...vials, containerQuantity: '' })).toBe(
      'Container quantity, size, and unit are required for continuous inventory',
    );
    expect(problem({ ...blisters, itemQuantity: '' })).toBe(
      'Container type, item quantity and unit are required for discrete inventory',
    );
    expect(problem({ ...blisters, itemUnit: '' })).toBe(
      'Container type, item quantity and unit are required for discrete inventory',
    );
  });

  it('wants whole counts of at least 1 and nothing negative', () => {
    const wholeContainers = 'Container quantity must be a whole number of at least 1';
    expect(problem({ ...blisters, containerQuantity: '0' })).toBe(wholeContainers);
    expect(problem({ ...blisters, containerQuantity: '1.5' })).toBe(wholeContainers);
    expect(problem({ ...blisters, itemQuantity: '2.5' })).toBe('Item quantity must be a whole number of at least 1');
    expect(problem({ ...vials, containerSize: '-1' })).toBe('Container size cannot be negative');
    expect(problem({ ...blisters, itemStrength: '-5' })).toBe('Item strength cannot be negative');
    expect(problem({ ...blisters, threshold: '-1' })).toBe('Reminder threshold cannot be negative');
    expect(problem({ ...blisters, currentQuantity: '-1' })).toBe('Current quantity cannot be negative');
    expect(problem({ ...vials, containerSize: '0' })).toBeNull();
  });

  it('sends numbers, and the current quantity only when asked', () => {
    expect(inventoryInput({ ...blisters, currentQuantity: '25' }, false)).toEqual({
      enabled: true,
      inventory_type: 'discrete',
      container_type: 'blister_pack',
      container_quantity: 3,
      container_size: null,
      container_unit: null,
      item_quantity: 10,
      item_strength: null,
      item_unit: 'tablets',
      reminder_threshold: 10,
    });
    expect(inventoryInput({ ...blisters, currentQuantity: '25' }, true).current_quantity).toBe(25);
    expect(inventoryInput(vials, true)).toMatchObject({
      container_size: 10,
      container_unit: 'ml',
      item_quantity: null,
    });
  });

  it('works out the total (SPEC §9)', () => {
    expect(formTotal(blisters)).toBe(30);
    expect(formTotal(vials)).toBe(20);
    expect(formTotal({ ...vials, containerSize: '' })).toBeNull();
  });

  it('asks for the strength when doses in mg are drawn from tablets, and refuses without it', () => {
    const text = (form: InventoryForm, unit: string) => {
      const found = inventoryProblem(form, unit);
      return found ? problemText(t, found) : null;
    };
    expect(strengthRequired(blisters, 'mg')).toBe(true);
    expect(strengthRequired(blisters, 'tablets')).toBe(false);
    expect(text(blisters, 'mg')).toBe(
      'Stock is counted in tablets but doses are in mg: enter how many mg one item holds (item strength).',
    );
    expect(text({ ...blisters, itemStrength: '0' }, 'mg')).not.toBeNull();
    expect(text({ ...blisters, itemStrength: '500' }, 'mg')).toBeNull();
    expect(text({ ...blisters, itemStrength: '500' }, 'g')).toBeNull();
    expect(text(blisters, 'tablets')).toBeNull();
    // Without the medication's unit (older callers) only the form's own fields are checked.
    expect(inventoryProblem(blisters)).toBeNull();
  });

  it('refuses a measured stock that doses cannot be counted in', () => {
    const text = (form: InventoryForm, unit: string) => {
      const found = inventoryProblem(form, unit);
      return found ? problemText(t, found) : null;
    };
    expect(text(vials, 'units')).toBe(
      'Stock is counted in ml but doses are in units: count the stock in units or a unit a dose converts to.',
    );
    expect(text(vials, 'μl')).toBeNull();
    expect(strengthRequired(vials, 'units')).toBe(false);
  });
});

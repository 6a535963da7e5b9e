import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { NumberField } from './NumberField';

function field(props: Partial<Parameters<typeof NumberField>[0]>): HTMLInputElement {
  render(<NumberField id="n" label="Amount" value="" onChange={() => undefined} kind="whole" {...props} />);
  return screen.getByLabelText<HTMLInputElement>('Amount');
}

describe('a number typed into a form', () => {
  it('bounds a whole number by the given range and names its hint', () => {
    const input = field({ kind: 'whole', min: 5, max: 1440, hint: 'Between 5 and 1440 minutes.' });
    expect([input.type, input.inputMode, input.min, input.max, input.step]).toEqual(['number', 'numeric', '5', '1440', '1']);
    expect(document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'Between 5 and 1440 minutes.',
    );
  });

  it('takes a dose in thousandths, above zero', () => {
    const input = field({ kind: 'dose' });
    expect([input.inputMode, input.min, input.step]).toEqual(['decimal', '0.001', '0.001']);
  });

  it('takes a change to the stock below zero too', () => {
    const input = field({ kind: 'stockChange', value: '-2.5' });
    expect([input.inputMode, input.min, input.step, input.value]).toEqual(['decimal', '', '0.001', '-2.5']);
    expect(input.validity.rangeUnderflow).toBe(false);
  });
});

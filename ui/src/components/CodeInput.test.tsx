import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { CodeInput } from './CodeInput';

function setup(props: { disabled?: boolean } = {}) {
  const onComplete = vi.fn();
  const onChange = vi.fn();
  render(<CodeInput label="Verification code" onComplete={onComplete} onChange={onChange} {...props} />);
  const boxes = screen.getAllByRole<HTMLInputElement>('textbox');
  const box = (index: number): HTMLInputElement => {
    const found = boxes[index];
    if (!found) throw new Error(`no box ${index}`);
    return found;
  };
  return { onComplete, onChange, boxes, box, user: userEvent.setup() };
}

const values = (boxes: HTMLInputElement[]) => boxes.map((box) => box.value).join('|');

describe('six-digit code input', () => {
  it('has six boxes in a labelled group, each named "Digit n of 6"', () => {
    const { boxes } = setup();
    expect(boxes).toHaveLength(6);
    expect(screen.getByRole('group', { name: 'Verification code' })).toBeTruthy();
    expect(boxes.map((box) => box.getAttribute('aria-label'))).toEqual([
      'Digit 1 of 6',
      'Digit 2 of 6',
      'Digit 3 of 6',
      'Digit 4 of 6',
      'Digit 5 of 6',
      'Digit 6 of 6',
    ]);
    expect(boxes[0]?.getAttribute('autocomplete')).toBe('one-time-code');
    expect(boxes.every((box) => box.inputMode === 'numeric')).toBe(true);
  });

  it('translates the box labels', async () => {
    await i18n.changeLanguage('de');
    const { boxes } = setup();
    expect(boxes[2]?.getAttribute('aria-label')).toBe('Ziffer 3 von 6');
  });

  it('advances to the next box on each digit and completes once with all six', async () => {
    const { boxes, box, user, onComplete } = setup();
    await user.click(box(0));
    await user.keyboard('1');
    expect(boxes[0]?.value).toBe('1');
    expect(document.activeElement).toBe(boxes[1]);

    await user.keyboard('23456');
    expect(values(boxes)).toBe('1|2|3|4|5|6');
    expect(document.activeElement).toBe(boxes[5]);
    expect(onComplete).toHaveBeenCalledTimes(1);
    expect(onComplete).toHaveBeenCalledWith('123456');
  });

  it('ignores anything that is not a digit', async () => {
    const { boxes, box, user, onChange, onComplete } = setup();
    await user.click(box(0));
    await user.keyboard('a- .x');
    expect(values(boxes)).toBe('|||||');
    expect(document.activeElement).toBe(boxes[0]);
    expect(onChange).not.toHaveBeenCalled();

    await user.keyboard('7b8');
    expect(values(boxes)).toBe('7|8||||');
    expect(onComplete).not.toHaveBeenCalled();
  });

  it('pasting strips non-digits, keeps six and fires completion once', async () => {
    const { boxes, box, user, onComplete } = setup();
    await user.click(box(2));
    await user.paste('12-34 56 78');
    expect(values(boxes)).toBe('1|2|3|4|5|6');
    expect(onComplete).toHaveBeenCalledTimes(1);
    expect(onComplete).toHaveBeenCalledWith('123456');
  });

  it('a short paste fills from the first box and leaves focus on the next empty one', async () => {
    const { boxes, box, user, onComplete } = setup();
    await user.click(box(0));
    await user.paste('code: 42');
    expect(values(boxes)).toBe('4|2||||');
    expect(document.activeElement).toBe(boxes[2]);
    expect(onComplete).not.toHaveBeenCalled();
  });

  it('Backspace clears a filled box, and on an empty box moves back', async () => {
    const { boxes, box, user } = setup();
    await user.click(box(0));
    await user.keyboard('123');
    expect(document.activeElement).toBe(boxes[3]);

    await user.keyboard('{Backspace}');
    expect(document.activeElement).toBe(boxes[2]);
    expect(values(boxes)).toBe('1|2||||');

    await user.keyboard('{Backspace}{Backspace}');
    expect(document.activeElement).toBe(boxes[0]);
    expect(values(boxes)).toBe('|||||');

    await user.keyboard('{Backspace}');
    expect(document.activeElement).toBe(boxes[0]);
  });

  it('arrow keys move between boxes without changing them', async () => {
    const { boxes, box, user } = setup();
    await user.click(box(0));
    await user.keyboard('{ArrowRight}{ArrowRight}');
    expect(document.activeElement).toBe(boxes[2]);
    await user.keyboard('{ArrowLeft}');
    expect(document.activeElement).toBe(boxes[1]);
    await user.keyboard('{ArrowLeft}{ArrowLeft}');
    expect(document.activeElement).toBe(boxes[0]);
    await user.keyboard('{End}');
    expect(document.activeElement).toBe(boxes[5]);
    await user.keyboard('{ArrowRight}');
    expect(document.activeElement).toBe(boxes[5]);
    expect(values(boxes)).toBe('|||||');
  });

  it('typing over a filled box replaces its digit', async () => {
    const { boxes, box, user, onComplete } = setup();
    await user.click(box(0));
    await user.keyboard('123456');
    await user.click(box(1));
    await user.keyboard('9');
    expect(values(boxes)).toBe('1|9|3|4|5|6');
    // A changed full code is a new attempt.
    expect(onComplete).toHaveBeenLastCalledWith('193456');
  });

  it('takes a whole code arriving at once (one-time-code autofill)', () => {
    const { boxes, box, onComplete } = setup();
    // Autofill sets the value without key events: the box reports it as input.
    fireEvent.input(box(0), { target: { value: '654321' } });
    expect(values(boxes)).toBe('6|5|4|3|2|1');
    expect(onComplete).toHaveBeenCalledTimes(1);
    expect(onComplete).toHaveBeenCalledWith('654321');
  });

  it('is disabled while loading', async () => {
    const { boxes, box, user, onChange } = setup({ disabled: true });
    expect(boxes.every((box) => box.disabled)).toBe(true);
    await user.click(box(0));
    await user.keyboard('123');
    await user.paste('123456');
    expect(values(boxes)).toBe('|||||');
    expect(onChange).not.toHaveBeenCalled();
  });
});

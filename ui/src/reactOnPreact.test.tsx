import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';

function FourLetters() {
  const [text, setText] = useState('');
  return <input aria-label="code" value={text} onChange={(event) => setText(event.target.value.slice(0, 4))} />;
}

function RefusedSwitch() {
  return <input type="checkbox" aria-label="switch" checked={false} onChange={() => undefined} />;
}

function LaterField() {
  const [shown, setShown] = useState(false);
  const [count, setCount] = useState(0);
  return (
    <>
      <button type="button" onClick={() => setShown(true)}>
        show
      </button>
      <button type="button" onClick={() => setCount((n) => n + 1)}>
        count {count}
      </button>
      {shown && <input aria-label="later" autoFocus />}
    </>
  );
}

describe('what the app keeps of React on Preact', () => {
  it('a controlled field shows what was rendered when a change leaves the state alone', async () => {
    render(<FourLetters />);
    const field = screen.getByLabelText<HTMLInputElement>('code');
    await userEvent.type(field, 'ABCDEFG');
    expect(field.value).toBe('ABCD');
  });

  it('a controlled checkbox whose change was refused stays as rendered', async () => {
    render(<RefusedSwitch />);
    const box = screen.getByLabelText<HTMLInputElement>('switch');
    await userEvent.click(box);
    expect(box.checked).toBe(false);
  });

  it('autoFocus focuses an element when it appears, and only then', async () => {
    render(<LaterField />);
    await userEvent.click(screen.getByRole('button', { name: 'show' }));
    const later = screen.getByLabelText('later');
    expect(document.activeElement).toBe(later);
    await userEvent.click(screen.getByRole('button', { name: /count/ }));
    expect(screen.getByRole('button', { name: 'count 1' })).toBeTruthy();
    expect(document.activeElement).not.toBe(later);
  });
});

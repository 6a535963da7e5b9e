import { act, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { Dialog } from './Dialog';

/** A dialog whose form comes once its data is in, as the Stock dialog's does. */
function Loading({ loaded }: { loaded: boolean }) {
  return (
    <Dialog title="Stock of Aspirin" onClose={() => undefined}>
      {loaded ? (
        <label>
          Track stock
          <input type="checkbox" data-autofocus />
        </label>
      ) : (
        <p role="status">Loading…</p>
      )}
    </Dialog>
  );
}

function Later() {
  const [loaded, setLoaded] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setLoaded(true)}>
        arrive
      </button>
      <Loading loaded={loaded} />
    </>
  );
}

/** After the DOM observers that the render set off have run. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the focus of a dialog', () => {
  it('goes to the control meant for it when that control is already there', () => {
    render(<Loading loaded />);
    expect(document.activeElement).toBe(screen.getByRole('checkbox', { name: 'Track stock' }));
  });

  it('moves to the control meant for it when that control comes after the data', async () => {
    render(<Later />);
    // Until then it waits on the close button, the dialog's first control.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    act(() => {
      screen.getByRole('button', { name: 'arrive', hidden: true }).click();
    });
    await settled();
    expect(document.activeElement).toBe(screen.getByRole('checkbox', { name: 'Track stock' }));
  });

  it('stays where the person moved it while the data was loading', async () => {
    render(<Later />);
    const arrive = screen.getByRole('button', { name: 'arrive', hidden: true });
    arrive.focus();
    act(() => {
      arrive.click();
    });
    await settled();
    expect(document.activeElement).toBe(arrive);
  });
});

import { useLayoutEffect, useState, type ReactNode } from 'react';

/** Whether the app's first signed-in frame has been drawn: later screens render with their frame. */
let framed = false;

/**
 * The first signed-in frame's screen, one task after the frame: on a slow phone neither task
 * holds the page long, and a tap in between is answered. Later screens render at once.
 */
export function NextTask({ children }: { children: ReactNode }) {
  const [ready, setReady] = useState(framed);
  useLayoutEffect(() => {
    if (ready) return;
    const timer = setTimeout(() => {
      framed = true;
      setReady(true);
    }, 0);
    return () => clearTimeout(timer);
  }, [ready]);
  return ready ? children : null;
}

import type { ReactNode } from 'react';

/** A titled page inside the signed-in shell. */
export function ScreenFrame({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="screen">
      <header className="screen-header">
        <h1>{title}</h1>
      </header>
      {children}
    </div>
  );
}

import { useEffect, useRef } from 'react';

/** A form's error, brought into view (long forms scroll) and announced. */
export function FormError({ text, heading }: { text: string | null; heading?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const node: Partial<Pick<HTMLElement, 'scrollIntoView'>> | null = ref.current;
    if (text) node?.scrollIntoView?.({ block: 'nearest' });
  }, [text]);
  if (!text) return null;
  return (
    <div ref={ref} className="form-error" role="alert">
      {heading && <p className="form-error-heading">{heading}</p>}
      <p>{text}</p>
    </div>
  );
}

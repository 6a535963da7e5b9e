import { SectionHeading } from './SectionHeading';

/** A section whose controls arrive with later work: its heading and one honest line. */
export function PlaceholderSection({ title, note }: { title: string; note: string }) {
  return (
    <>
      <SectionHeading title={title} />
      <div className="card">
        <p className="muted">{note}</p>
      </div>
    </>
  );
}

/** The heading of the open settings section; the panel is labelled by it. */
export const SECTION_TITLE_ID = 'settings-section-title';

export function SectionHeading({ title, description }: { title: string; description?: string }) {
  return (
    <header className="section-heading">
      <h2 id={SECTION_TITLE_ID}>{title}</h2>
      {description && <p>{description}</p>}
    </header>
  );
}

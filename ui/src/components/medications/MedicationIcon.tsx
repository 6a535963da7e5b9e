import type { ReactNode, SVGProps } from 'react';

type IconProps = SVGProps<SVGSVGElement>;

function Glyph({ children, ...props }: IconProps & { children: ReactNode }) {
  return (
    <svg
      viewBox="0 0 24 24"
      width="22"
      height="22"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...props}
    >
      {children}
    </svg>
  );
}

const GLYPHS: Record<string, ReactNode> = {
  'pill-symbolic': (
    <>
      <rect x="2.5" y="8.5" width="19" height="7" rx="3.5" transform="rotate(-45 12 12)" />
      <path d="M9.5 9.5l5 5" />
    </>
  ),
  'capsule-symbolic': (
    <>
      <rect x="7.5" y="2.5" width="9" height="19" rx="4.5" />
      <path d="M7.5 12h9" />
    </>
  ),
  'tablet-symbolic': (
    <>
      <circle cx="12" cy="12" r="8.5" />
      <path d="M6 12h12" />
    </>
  ),
  'bottle-symbolic': (
    <>
      <path d="M9.5 2.5h5v3h-5z" />
      <path d="M9 5.5h6l1.5 3v11a2 2 0 0 1-2 2h-5a2 2 0 0 1-2-2v-11z" />
      <path d="M7.5 12h9" />
    </>
  ),
  'syringe-symbolic': (
    <>
      <path d="M17 3l4 4M19 5l-3.5 3.5" />
      <path d="M15.5 8.5l-9 9-2.5.5.5-2.5 9-9z" />
      <path d="M11 9l1.5 1.5M8.5 11.5L10 13" />
      <path d="M4 20l-1.5 1.5" />
    </>
  ),
  'drops-symbolic': (
    <>
      <path d="M12 3c3 4 5.5 7 5.5 10a5.5 5.5 0 0 1-11 0C6.5 10 9 7 12 3z" />
      <path d="M9.5 14a2.5 2.5 0 0 0 2.5 2.5" />
    </>
  ),
  'inhaler-symbolic': (
    <>
      <path d="M8 2.5h5l1 9H7z" />
      <path d="M7 11.5h8.5a2 2 0 0 1 2 2v6a2 2 0 0 1-2 2H9a2 2 0 0 1-2-2z" />
      <path d="M17.5 15.5h3v4h-3" />
    </>
  ),
};

/** A medication's icon by name; names we do not draw show the pill. */
export function MedicationGlyph({ icon, ...props }: IconProps & { icon: string }) {
  return <Glyph {...props}>{GLYPHS[icon] ?? GLYPHS['pill-symbolic']}</Glyph>;
}

/** The coloured round badge with the medication's icon. */
export function MedicationAvatar({ icon, color, small }: { icon: string; color: string; small?: boolean }) {
  return (
    <span className={`med-avatar med-color-${color}${small ? ' med-avatar-small' : ''}`} aria-hidden="true">
      <MedicationGlyph icon={icon} width={small ? 16 : 22} height={small ? 16 : 22} />
    </span>
  );
}

export function PlusIcon(props: IconProps) {
  return (
    <Glyph width="18" height="18" {...props}>
      <path d="M12 5v14M5 12h14" />
    </Glyph>
  );
}

export function TrashIcon(props: IconProps) {
  return (
    <Glyph width="18" height="18" {...props}>
      <path d="M4.5 7h15M10 11v6M14 11v6" />
      <path d="M6.5 7l1 12.5a2 2 0 0 0 2 1.5h5a2 2 0 0 0 2-1.5l1-12.5" />
      <path d="M9.5 7V4.5h5V7" />
    </Glyph>
  );
}

export function EditIcon(props: IconProps) {
  return (
    <Glyph width="18" height="18" {...props}>
      <path d="M4 20h4L19 9l-4-4L4 16z" />
      <path d="M13.5 6.5l4 4" />
    </Glyph>
  );
}

export function BoxIcon(props: IconProps) {
  return (
    <Glyph width="18" height="18" {...props}>
      <path d="M3.5 7.5L12 3l8.5 4.5v9L12 21l-8.5-4.5z" />
      <path d="M3.5 7.5L12 12l8.5-4.5M12 12v9" />
    </Glyph>
  );
}

export function BellSmallIcon(props: IconProps) {
  return (
    <Glyph width="18" height="18" {...props}>
      <path d="M6 16.5V11a6 6 0 0 1 12 0v5.5l1.5 1.5h-15z" />
      <path d="M10 20.5a2 2 0 0 0 4 0" />
    </Glyph>
  );
}

export function ChevronIcon({ direction, ...props }: IconProps & { direction: 'left' | 'right' }) {
  return (
    <Glyph width="18" height="18" {...props}>
      <path d={direction === 'left' ? 'M14.5 6l-6 6 6 6' : 'M9.5 6l6 6-6 6'} />
    </Glyph>
  );
}

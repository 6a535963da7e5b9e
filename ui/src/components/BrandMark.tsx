/** The Pillbox capsule mark, the same drawing as the app icon. */
export function BrandMark({ size = 32 }: { size?: number }) {
  return (
    <svg viewBox="0 0 64 64" width={size} height={size} aria-hidden="true" focusable="false">
      <rect width="64" height="64" rx="14" fill="#0f766e" />
      <g transform="rotate(-45 32 32)">
        <path d="M32 22H21.5a10 10 0 0 0 0 20H32z" fill="#ffffff" />
        <path d="M32 22h10.5a10 10 0 0 1 0 20H32z" fill="#fbbf24" />
        <rect x="31.3" y="22" width="1.4" height="20" fill="#115e59" />
      </g>
    </svg>
  );
}

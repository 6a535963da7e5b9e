import type { Flash } from './useFlash';

/** A success note (polite) or an error (assertive) from useFlash. */
export function FlashMessage({ flash }: { flash: Flash | null }) {
  if (!flash) return null;
  return flash.kind === 'success' ? (
    <p className="form-success" role="status">
      {flash.text}
    </p>
  ) : (
    <p className="form-error" role="alert">
      {flash.text}
    </p>
  );
}

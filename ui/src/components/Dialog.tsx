import { useId, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from '../i18n/useTranslation';
import { CloseIcon } from './icons';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

interface DialogProps {
  title: string;
  /** Escape and the close button call it; leave it out while the dialog must stay open. */
  onClose?: () => void;
  children: ReactNode;
  /** Buttons along the bottom. */
  actions?: ReactNode;
  /** Extra class, e.g. `dialog-danger`. */
  className?: string;
  /** A click on the backdrop closes it too (only where nothing is lost by accident). */
  closeOnBackdrop?: boolean;
}

/**
 * A modal dialog: focus moves in (to `[data-autofocus]` or the first control), stays in
 * while it is open, and returns to where it was when it closes. Escape closes it. A click
 * beside it does not unless `closeOnBackdrop` says so, so codes shown in it are not lost by
 * accident.
 */
export function Dialog({ title, onClose, children, actions, className, closeOnBackdrop }: DialogProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  // A press that starts inside (selecting text) and ends on the backdrop is not a click beside it.
  const pressedBeside = useRef(false);

  // Before the dialog is painted, so no frame shows it without the focus (and a test that finds
  // the dialog finds the focus in it, whichever runtime schedules the effects).
  useLayoutEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const root = panel.current;
    // A child may already have taken focus (e.g. a code input with autoFocus).
    let waiting: MutationObserver | null = null;
    if (root && !root.contains(document.activeElement)) {
      const wanted = root.querySelector<HTMLElement>('[data-autofocus]');
      const first = wanted ?? root.querySelector<HTMLElement>(FOCUSABLE) ?? root;
      first.focus();
      // The control meant to have the focus may come with content that is still loading (a
      // form shown once its data is in): it takes the focus when it appears, unless the
      // person has moved it meanwhile.
      if (!wanted) waiting = focusWhenItAppears(root, first);
    }
    document.body.classList.add('has-dialog');
    return () => {
      waiting?.disconnect();
      document.body.classList.remove('has-dialog');
      if (previous?.isConnected) previous.focus();
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape' && onClose) {
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== 'Tab' || !panel.current) return;
    const focusable = [...panel.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) {
      event.preventDefault();
      return;
    }
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div
      className="dialog-backdrop"
      onMouseDown={(event) => {
        pressedBeside.current = event.target === event.currentTarget;
      }}
      onClick={(event) => {
        if (closeOnBackdrop && onClose && pressedBeside.current && event.target === event.currentTarget) onClose();
      }}
    >
      <div
        ref={panel}
        className={className ? `dialog ${className}` : 'dialog'}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <div className="dialog-header">
          <h2 id={titleId}>{title}</h2>
          {onClose && (
            <button type="button" className="icon-button dialog-close" onClick={onClose} aria-label={t('common.close')}>
              <CloseIcon />
            </button>
          )}
        </div>
        <div className="dialog-body">{children}</div>
        {actions && <div className="dialog-actions">{actions}</div>}
      </div>
    </div>,
    document.body,
  );
}

/** Moves the focus from `holder` to the first `[data-autofocus]` control added to `root` later. */
function focusWhenItAppears(root: HTMLElement, holder: HTMLElement): MutationObserver {
  const observer = new MutationObserver(() => {
    if (document.activeElement !== holder) {
      observer.disconnect();
      return;
    }
    const wanted = root.querySelector<HTMLElement>('[data-autofocus]');
    if (!wanted) return;
    observer.disconnect();
    wanted.focus();
  });
  observer.observe(root, { childList: true, subtree: true });
  return observer;
}

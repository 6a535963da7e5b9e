import { useEffect, useRef, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';

export const CODE_LENGTH = 6;

const EMPTY: readonly string[] = Array.from({ length: CODE_LENGTH }, () => '');

interface CodeInputProps {
  /** Fires each time the sixth box is filled (spec §5 "Six-digit code input"). */
  onComplete: (code: string) => void;
  /** The digits so far, holes left out. */
  onChange?: (code: string) => void;
  disabled?: boolean;
  autoFocus?: boolean;
  /** The group's accessible name, e.g. "Verification code". */
  label: string;
  /** Ties the group to a visible description. */
  describedBy?: string;
}

function onlyDigits(text: string): string {
  return text.replace(/\D/g, '');
}

/**
 * Six single-digit boxes: digits only, auto-advance, Backspace on an empty box goes back,
 * arrow keys move, paste fills from the first box. To clear it, give it a new `key`.
 */
export function CodeInput({ onComplete, onChange, disabled = false, autoFocus = false, label, describedBy }: CodeInputProps) {
  const { t } = useTranslation();
  const [digits, setDigits] = useState<readonly string[]>(EMPTY);
  // Events can follow each other faster than renders: always build on the latest digits.
  const latest = useRef<readonly string[]>(EMPTY);
  const boxes = useRef<(HTMLInputElement | null)[]>([]);

  useEffect(() => {
    if (autoFocus && !disabled) boxes.current[0]?.focus();
    // Only when the input appears (or is enabled again), not on every digit.
  }, [autoFocus, disabled]);

  const focusBox = (index: number) => {
    const box = boxes.current[Math.max(0, Math.min(CODE_LENGTH - 1, index))];
    box?.focus();
    box?.select();
  };

  const commit = (next: readonly string[]) => {
    latest.current = next;
    setDigits(next);
    const code = next.join('');
    onChange?.(code);
    if (code.length === CODE_LENGTH) onComplete(code);
  };

  /** Writes `text`'s digits into the boxes from `start` on. */
  const fill = (start: number, text: string, clearRest: boolean) => {
    const incoming = onlyDigits(text).slice(0, CODE_LENGTH - start);
    if (incoming === '') return;
    const next = latest.current.map((digit, index) => {
      if (index < start) return digit;
      const offset = index - start;
      if (offset < incoming.length) return incoming.charAt(offset);
      return clearRest ? '' : digit;
    });
    commit(next);
    focusBox(start + incoming.length);
  };

  const setAt = (index: number, digit: string) => {
    commit(latest.current.map((current, i) => (i === index ? digit : current)));
  };

  const onKeyDown = (index: number, event: KeyboardEvent<HTMLInputElement>) => {
    const { key } = event;
    if (/^\d$/.test(key)) {
      event.preventDefault();
      setAt(index, key);
      if (index < CODE_LENGTH - 1) focusBox(index + 1);
      return;
    }
    switch (key) {
      case 'Backspace':
        event.preventDefault();
        if (latest.current[index] !== '') {
          setAt(index, '');
        } else if (index > 0) {
          setAt(index - 1, '');
          focusBox(index - 1);
        }
        return;
      case 'Delete':
        event.preventDefault();
        setAt(index, '');
        return;
      case 'ArrowLeft':
        event.preventDefault();
        focusBox(index - 1);
        return;
      case 'ArrowRight':
        event.preventDefault();
        focusBox(index + 1);
        return;
      case 'Home':
        event.preventDefault();
        focusBox(0);
        return;
      case 'End':
        event.preventDefault();
        focusBox(CODE_LENGTH - 1);
        return;
    }
    // Letters, spaces and the like never reach the box; shortcuts (paste) and Tab do.
    if (key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) event.preventDefault();
  };

  // Keyboards that do not report keys (some phone keyboards) and one-time-code autofill
  // arrive here instead.
  const onInput = (index: number, value: string) => {
    const typed = onlyDigits(value);
    if (typed === '') {
      setAt(index, '');
      return;
    }
    if (typed.length >= CODE_LENGTH) {
      fill(0, typed, true);
      return;
    }
    // The box held a digit and got another one: keep the new one (the last typed).
    const previous = latest.current[index] ?? '';
    const fresh = typed.length > 1 && typed.startsWith(previous) ? typed.slice(previous.length) : typed;
    fill(index, fresh, false);
  };

  const onPaste = (event: ClipboardEvent<HTMLInputElement>) => {
    event.preventDefault();
    fill(0, event.clipboardData.getData('text'), true);
  };

  return (
    <div className="code-input" role="group" aria-label={label} aria-describedby={describedBy}>
      {digits.map((digit, index) => (
        <input
          // The six boxes never reorder, so their position is their identity.
          key={index}
          ref={(element) => {
            boxes.current[index] = element;
          }}
          className="code-input-box"
          type="text"
          inputMode="numeric"
          pattern="[0-9]*"
          autoComplete={index === 0 ? 'one-time-code' : 'off'}
          aria-label={t('codeInput.digit', { index: index + 1, total: CODE_LENGTH })}
          value={digit}
          disabled={disabled}
          onKeyDown={(event) => onKeyDown(index, event)}
          onChange={(event) => onInput(index, event.target.value)}
          onPaste={onPaste}
          onFocus={(event) => event.target.select()}
        />
      ))}
    </div>
  );
}

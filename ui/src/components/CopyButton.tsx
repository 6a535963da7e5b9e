import { useEffect, useRef, useState } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { copyText } from './clipboard';
import { CheckIcon, CopyIcon } from './icons';

/** The "copied" indicator lasts 2 seconds (spec §4, §9). */
export const COPIED_MS = 2000;

interface CopyButtonProps {
  text: string;
  /** The button's text, e.g. "Copy codes". */
  label: string;
}

export function CopyButton({ text, label }: CopyButtonProps) {
  const { t } = useTranslation();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  const copy = async () => {
    const copied = await copyText(text);
    setState(copied ? 'copied' : 'failed');
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState('idle'), COPIED_MS);
  };

  return (
    <span className="copy-button">
      <button type="button" className="button button-secondary button-small" onClick={() => void copy()}>
        {state === 'copied' ? <CheckIcon /> : <CopyIcon />}
        <span>{state === 'copied' ? t('common.copied') : label}</span>
      </button>
      <span className={state === 'failed' ? 'copy-failed' : 'visually-hidden'} role="status">
        {state === 'failed' ? t('common.copyFailed') : state === 'copied' ? t('common.copied') : ''}
      </span>
    </span>
  );
}

import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { DeliveryMethod } from '../../api/notifications';
import { useSendTestNotification } from '../../queries/notifications';
import type { Flash } from '../useFlash';
import { resultChannelLabel } from '../../notifications/channelWords';
import { prefsErrorText } from './prefsErrors';

/** SPEC §4, §9: the dialog closes 1.5 s after a save and 3 s after a test notification. */
export const SAVED_CLOSE_MS = 1500;
export const TESTED_CLOSE_MS = 3000;

export type Busy = 'save' | 'test' | null;

export interface PreferencesActions {
  /** The outcome of the last save or test. */
  notice: Flash | null;
  /** The channels a successful test could not use, with the server's reason. */
  failedChannels: string[];
  busy: Busy;
  /** A save or test went through: the dialog is about to close. */
  closing: boolean;
  save: (send: () => Promise<void>) => Promise<void>;
  test: (methods: readonly DeliveryMethod[]) => Promise<void>;
  showError: (text: string) => void;
}

/** The dialog's Save and Test Notification: their messages, and closing after success. */
export function usePreferencesActions(onClose: () => void): PreferencesActions {
  const { t } = useTranslation('notifyPrefs');
  const [notice, setNotice] = useState<Flash | null>(null);
  const [failedChannels, setFailedChannels] = useState<string[]>([]);
  const [busy, setBusy] = useState<Busy>(null);
  const [closing, setClosing] = useState(false);
  const { mutateAsync: sendTest } = useSendTestNotification();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const mounted = useRef(false);
  const close = useRef(onClose);

  useEffect(() => {
    close.current = onClose;
  });

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      clearTimeout(timer.current);
    };
  }, []);

  const closeAfter = useCallback((ms: number) => {
    // Closed by hand while the call was on its way: nothing left to close.
    if (!mounted.current) return;
    setClosing(true);
    timer.current = setTimeout(() => close.current(), ms);
  }, []);

  const begin = useCallback((what: Busy) => {
    setBusy(what);
    setNotice(null);
    setFailedChannels([]);
  }, []);

  const save = useCallback(
    async (send: () => Promise<void>) => {
      begin('save');
      try {
        await send();
        setNotice({ kind: 'success', text: t('dialog.saved') });
        closeAfter(SAVED_CLOSE_MS);
      } catch (error) {
        setNotice({ kind: 'error', text: prefsErrorText(t, error, 'errors.save') });
      } finally {
        setBusy(null);
      }
    },
    [begin, closeAfter, t],
  );

  const test = useCallback(
    async (methods: readonly DeliveryMethod[]) => {
      begin('test');
      try {
        const results = await sendTest(methods);
        setNotice({ kind: 'success', text: t('dialog.testSent') });
        setFailedChannels(
          results
            .filter((result) => !result.ok)
            .map((result) =>
              t('dialog.channelFailed', {
                channel: resultChannelLabel(t, result.channel, result.params),
                reason: result.detail || t('dialog.notDelivered'),
              }),
            ),
        );
        closeAfter(TESTED_CLOSE_MS);
      } catch (error) {
        setNotice({ kind: 'error', text: prefsErrorText(t, error, 'errors.test') });
      } finally {
        setBusy(null);
      }
    },
    [begin, closeAfter, sendTest, t],
  );

  const showError = useCallback((text: string) => {
    setFailedChannels([]);
    setNotice({ kind: 'error', text });
  }, []);

  return { notice, failedChannels, busy, closing, save, test, showError };
}

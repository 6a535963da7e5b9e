import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { channelIdOf, channelResultsOf, type ChannelResult } from '../../api/notifications';
import { resultChannelLabel } from '../../notifications/channelWords';
import { deliveryResultText } from '../../notifications/deliveryWords';
import { deliveryFailureDetail } from '../../notifications/notifyErrors';
import { globalPreferencesQuery, useSendTestNotification } from '../../queries/notifications';

interface Outcome {
  ok: boolean;
  results: ChannelResult[];
  /** Why nothing was sent, when no channel reported. */
  detail: string | null;
}

/** SPEC §2 "Send Test Notification": a test over the methods the general settings use. */
export function TestNotificationCard() {
  const { t } = useTranslation('notify');
  const { t: tp } = useTranslation('notifyPrefs');
  const client = useQueryClient();
  const sendTest = useSendTestNotification();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  // Push and e-mail by the page's own words; a channel by its name and kind.
  const stepName = (result: ChannelResult) =>
    channelIdOf(result.channel) === null
      ? t(`channel.${result.channel === 'email' ? 'email' : 'push'}`)
      : resultChannelLabel(tp, result.channel, result.params);

  const send = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      // The methods as the server has them now, not as some screen last loaded them.
      const methods = (await client.query({ ...globalPreferencesQuery, staleTime: 0 })).default_delivery_methods;
      const results = await sendTest.mutateAsync(methods.length > 0 ? methods : ['push']);
      setOutcome({ ok: true, results, detail: null });
    } catch (error) {
      const results = channelResultsOf(error);
      setOutcome({ ok: false, results, detail: results.length > 0 ? null : deliveryFailureDetail(t, error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="test-card-title" data-testid="test-card">
      <h3 id="test-card-title">{t('test.title')}</h3>
      <p className="card-text">{t('test.description')}</p>
      <div>
        <button type="button" className="button button-primary" onClick={() => void send()} disabled={busy}>
          {busy ? t('test.sending') : t('test.button')}
        </button>
      </div>
      {outcome && (
        <div className={outcome.ok ? 'form-success' : 'form-error'} role={outcome.ok ? 'status' : 'alert'}>
          <p data-testid="test-outcome">{outcome.ok ? t('test.sent') : t('test.failed')}</p>
          {outcome.detail && <p>{outcome.detail}</p>}
          {outcome.results.length > 0 && (
            <ul className="channel-results" data-testid="test-results">
              {outcome.results.map((result) => (
                <li
                  key={`${result.channel}-${result.fallback ? 'fallback' : 'own'}-${result.code}`}
                  className={result.ok ? 'channel-ok' : 'channel-failed'}
                  data-testid="test-step"
                >
                  <strong>{result.fallback ? t('delivery.fallbackStep') : stepName(result)}</strong>{' '}
                  <span>{result.ok ? t('test.channelOk') : t('test.channelFailed')}</span>
                  <span>: {deliveryResultText(t, result.code, result.params, result.detail)}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}

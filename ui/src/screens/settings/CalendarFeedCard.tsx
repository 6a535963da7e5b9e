import { useId, useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { ApiError } from '../../api/client';
import { CopyButton } from '../../components/CopyButton';
import { FlashMessage } from '../../components/FlashMessage';
import { useMedsFormat } from '../../components/medications/useMedsFormat';
import { prefsErrorText } from '../../components/notifications/prefsErrors';
import { useFlash } from '../../components/useFlash';
import { useCreateFeed, useFeedStatusQuery, useRevokeFeed } from '../../queries/calendar';

/**
 * The private calendar feed: made here, its secret address shown once (to copy into a
 * calendar app), and revoked here.
 */
export function CalendarFeedCard() {
  const { t } = useTranslation('notifyPrefs');
  const format = useMedsFormat();
  const titleId = useId();
  const urlId = useId();
  const status = useFeedStatusQuery();
  const create = useCreateFeed();
  const revoke = useRevokeFeed();
  // The address, only right after it was made: the server does not show it again.
  const [url, setUrl] = useState<string | null>(null);
  const [flash, showFlash] = useFlash();
  const busy = create.isPending || revoke.isPending;
  const feed = status.data;

  // A server without calendar feeds: nothing to offer.
  if (status.error instanceof ApiError && status.error.status === 404) return null;

  const make = async () => {
    try {
      setUrl((await create.mutateAsync()).url);
      showFlash('success', t('calendar.created'));
    } catch (error) {
      showFlash('error', prefsErrorText(t, error, 'calendar.failed'));
    }
  };

  const remove = async () => {
    try {
      await revoke.mutateAsync();
      setUrl(null);
      showFlash('success', t('calendar.revoked'));
    } catch (error) {
      showFlash('error', prefsErrorText(t, error, 'calendar.failed'));
    }
  };

  return (
    <section className="card prefs-section calendar-feed" aria-labelledby={titleId} data-testid="calendar-feed">
      <h3 id={titleId}>{t('calendar.title')}</h3>
      <p className="field-hint">{t('calendar.description')}</p>
      <p className="field-hint">{t('calendar.private')}</p>
      <FlashMessage flash={flash} />
      {status.isError && !feed && (
        <p className="form-error" role="alert">
          {prefsErrorText(t, status.error, 'calendar.loadFailed')}
        </p>
      )}
      {feed && !feed.exists && <p className="muted">{t('calendar.none')}</p>}
      {feed?.exists && url === null && (
        <p className="muted" data-testid="calendar-feed-since">
          {feed.created_at ? t('calendar.since', { date: format.dateTime(feed.created_at) }) : t('calendar.exists')}
        </p>
      )}
      {url !== null && (
        <div className="field">
          <label htmlFor={urlId}>{t('calendar.address')}</label>
          <input
            id={urlId}
            className="calendar-feed-url"
            readOnly
            value={url}
            onFocus={(event) => event.target.select()}
            data-testid="calendar-feed-url"
          />
          <div>
            <CopyButton text={url} label={t('calendar.copy')} />
          </div>
        </div>
      )}
      {feed && (
        <div className="button-row">
          <button type="button" className="button button-primary" disabled={busy} onClick={() => void make()}>
            {create.isPending ? t('calendar.creating') : feed.exists ? t('calendar.replace') : t('calendar.create')}
          </button>
          {feed.exists && (
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => void remove()}>
              {revoke.isPending ? t('calendar.revoking') : t('calendar.revoke')}
            </button>
          )}
        </div>
      )}
    </section>
  );
}

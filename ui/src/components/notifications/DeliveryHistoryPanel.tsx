import type { TFunction } from '../../i18n';
import { useTranslation } from '../../i18n/useTranslation';
import { channelIdOf, type Delivery } from '../../api/notifications';
import { channelLabel, kindName } from '../../notifications/channelWords';
import { deliveryResultText, deliveryTitleText } from '../../notifications/deliveryWords';
import { notifyErrorText } from '../../notifications/notifyErrors';
import { mergeDeliveryPages, useDeliveriesQuery } from '../../queries/notifications';
import { ScreenStatus } from '../medications/ScreenStatus';
import { useMedsFormat } from '../medications/useMedsFormat';

/** The Notifications page's History tab: every delivery attempt, newest first. */
export function DeliveryHistoryPanel() {
  const { t } = useTranslation('notify');
  const query = useDeliveriesQuery();
  const history = query.data ? mergeDeliveryPages(query.data.pages) : null;
  // A further page that failed is said beside its button; the first page's failure above all.
  const failedMore = query.isFetchNextPageError;
  const error = query.error && !failedMore ? notifyErrorText(t, query.error, 'errors.loadHistory') : null;
  const more = {
    busy: query.isFetchingNextPage,
    error: query.error && failedMore ? notifyErrorText(t, query.error, 'errors.loadHistory') : null,
  };
  const reload = () => void query.refetch();
  const loadMore = () => query.fetchNextPage();

  const loading = query.isFetching && !query.isFetchingNextPage;
  const shown = history?.deliveries.length ?? 0;

  return (
    <>
      <ScreenStatus loading={loading && !history} error={error} onRetry={reload} />
      {history && shown === 0 && !error && (
        <div className="empty-state" data-testid="history-empty">
          <p className="empty-title">{t('history.empty')}</p>
          <p className="empty-hint">{t('history.emptyHint')}</p>
        </div>
      )}
      {history && shown > 0 && (
        <>
          <ul className="notification-list" aria-busy={loading} data-testid="delivery-list">
            {history.deliveries.map((delivery) => (
              <DeliveryRow key={delivery.id} delivery={delivery} />
            ))}
          </ul>
          <div className="delivery-more">
            <p className="muted" data-testid="history-summary">
              {t('history.summary', { shown, total: Math.max(history.total, shown) })}
            </p>
            {more.error && (
              <p className="form-error" role="alert">
                {more.error}
              </p>
            )}
            {shown < history.total && (
              <button
                type="button"
                className="button button-secondary"
                onClick={() => void loadMore()}
                disabled={more.busy}
              >
                {more.busy ? t('history.loadingMore') : t('history.loadMore')}
              </button>
            )}
          </div>
        </>
      )}
    </>
  );
}

/** Push, E-mail, or for a channel its name and kind ("Phone (ntfy)"), kept after it was deleted. */
function deliveryChannelText(t: TFunction, tp: TFunction, delivery: Delivery): string {
  if (channelIdOf(delivery.channel) === null) return t(`channel.${delivery.channel === 'email' ? 'email' : 'push'}`);
  return delivery.channel_name
    ? channelLabel(tp, delivery.channel_name, delivery.channel_kind)
    : kindName(tp, delivery.channel_kind) || tp('channels.unknown', { id: channelIdOf(delivery.channel) });
}

function DeliveryRow({ delivery }: { delivery: Delivery }) {
  const { t } = useTranslation('notify');
  const { t: tp } = useTranslation('notifyPrefs');
  const format = useMedsFormat();
  const sent = delivery.result === 'sent';
  const outcome = deliveryResultText(t, delivery.result_code, delivery.result_params, delivery.error ?? '');
  return (
    <li className="notification-row" data-testid="delivery-row">
      <div className="notification-main">
        <div className="notification-heading">
          <h3 className="notification-title">
            {deliveryTitleText(t, delivery.title_code, delivery.title_params, delivery.title)}
          </h3>
          <span className={sent ? 'badge badge-on' : 'badge badge-danger'} data-testid="delivery-result">
            {t(`history.result.${delivery.result}`)}
          </span>
          {delivery.kind !== 'reminder' && (
            <span className="badge badge-neutral" data-testid="delivery-kind">
              {t(`history.kind.${delivery.kind}`)}
            </span>
          )}
        </div>
        {delivery.medication_name && <p className="notification-medication">{delivery.medication_name}</p>}
        <dl className="notification-times">
          <div>
            <dt>{t('history.channel')}</dt>
            <dd data-testid="delivery-channel">{deliveryChannelText(t, tp, delivery)}</dd>
          </div>
          <div>
            <dt>{t('history.time')}</dt>
            <dd data-testid="delivery-time">{format.dateTime(delivery.attempted_at)}</dd>
          </div>
        </dl>
        {delivery.fallback && (
          <p className="delivery-fallback" data-testid="delivery-fallback">
            {t('history.fallback')}
          </p>
        )}
        {!sent && outcome && (
          <p className="notification-failure" data-testid="delivery-error">
            {outcome}
          </p>
        )}
        {sent && outcome && (
          <p className="muted" data-testid="delivery-outcome">
            {outcome}
          </p>
        )}
      </div>
    </li>
  );
}

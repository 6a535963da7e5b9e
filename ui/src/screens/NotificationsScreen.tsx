import { useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { Link, useSearchParams } from 'react-router-dom';
import { type NotificationList, type NotificationStatus, type ScheduledNotification } from '../api/notifications';
import { FlashMessage } from '../components/FlashMessage';
import { DeliveryHistoryPanel } from '../components/notifications/DeliveryHistoryPanel';
import { NotificationSettingsPanel } from '../components/notifications/NotificationSettingsPanel';
import { ScreenStatus } from '../components/medications/ScreenStatus';
import { useMedsFormat } from '../components/medications/useMedsFormat';
import { useFlash } from '../components/useFlash';
import { medsErrorText } from '../medications/errors';
import { useCancelNotification, useScheduledNotificationsQuery } from '../queries/notifications';
import '../styles/medications.css';
import '../styles/notifications.css';

const TABS = ['scheduled', 'settings', 'history'] as const;
type Tab = (typeof TABS)[number];

/** SPEC §4 "Notification status": blue scheduled, green sent, red cancelled and failed. */
const STATUS_CLASS: Record<NotificationStatus, string> = {
  scheduled: 'badge badge-info',
  sent: 'badge badge-on',
  cancelled: 'badge badge-danger',
  failed: 'badge badge-danger',
};

/** A scheduled notification's title, by its kind (`notificationsPage.titles`). */
const TITLE_KEYS: Record<ScheduledNotification['kind'], string> = {
  dose: 'dose',
  one_off: 'dose',
  low_stock: 'lowStock',
  refill: 'refill',
  batch_expiring: 'batchExpiring',
  batch_expired: 'batchExpired',
};

/** SPEC §2 "Notifications page": Scheduled, Settings and History tabs. */
export function NotificationsScreen() {
  const { t } = useTranslation('meds');
  // A link may open a tab (`?tab=settings`, where delivery methods are chosen).
  const [searchParams] = useSearchParams();
  const linked = TABS.find((name) => name === searchParams.get('tab'));
  const [chosen, setTab] = useState<Tab | null>(null);
  const tab = chosen ?? linked ?? 'scheduled';
  const query = useScheduledNotificationsQuery();
  const list = query.data ?? null;
  const loadError = query.error ? medsErrorText(t, query.error, 'errors.loadNotifications') : null;
  const reload = () => void query.refetch();
  const tabRefs = useRef<Partial<Record<Tab, HTMLButtonElement | null>>>({});

  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    const index = TABS.indexOf(tab);
    let next: number | null = null;
    if (event.key === 'ArrowRight') next = (index + 1) % TABS.length;
    else if (event.key === 'ArrowLeft') next = (index - 1 + TABS.length) % TABS.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = TABS.length - 1;
    if (next === null) return;
    event.preventDefault();
    const target = TABS[next] ?? 'scheduled';
    setTab(target);
    tabRefs.current[target]?.focus();
  };

  const label = (name: Tab) =>
    name === 'scheduled'
      ? list
        ? t('notificationsPage.tabs.scheduledCount', { count: list.total })
        : t('notificationsPage.tabs.scheduled')
      : t(`notificationsPage.tabs.${name}`);

  return (
    <div className="screen">
      <header className="screen-header">
        <h1>{t('notificationsPage.title')}</h1>
      </header>

      <div className="notification-tabs" role="tablist" aria-label={t('notificationsPage.title')}>
        {TABS.map((name) => (
          <button
            key={name}
            ref={(element) => {
              tabRefs.current[name] = element;
            }}
            type="button"
            role="tab"
            id={`notifications-tab-${name}`}
            aria-selected={tab === name}
            aria-controls={`notifications-panel-${name}`}
            tabIndex={tab === name ? 0 : -1}
            className={tab === name ? 'notification-tab active' : 'notification-tab'}
            onClick={() => setTab(name)}
            onKeyDown={onTabKey}
          >
            {label(name)}
          </button>
        ))}
      </div>

      {TABS.map((name) => (
        <section
          key={name}
          role="tabpanel"
          id={`notifications-panel-${name}`}
          aria-labelledby={`notifications-tab-${name}`}
          hidden={tab !== name}
          className="notification-panel"
        >
          {name === 'scheduled' && tab === name && (
            <ScheduledPanel list={list} loading={query.isFetching} error={loadError} reload={reload} />
          )}
          {name === 'settings' && tab === name && <NotificationSettingsPanel />}
          {name === 'history' && tab === name && <DeliveryHistoryPanel />}
        </section>
      ))}
    </div>
  );
}

interface ScheduledPanelProps {
  list: NotificationList | null;
  loading: boolean;
  error: string | null;
  reload: () => void;
}

function ScheduledPanel({ list, loading, error, reload }: ScheduledPanelProps) {
  const { t } = useTranslation('meds');
  const [flash, showFlash] = useFlash();
  const cancelling = useCancelNotification();
  const busy = cancelling.isPending ? cancelling.variables : null;

  // Refused or not, the list is asked again (the reminder may have been sent meanwhile).
  const cancel = async (notification: ScheduledNotification) => {
    try {
      await cancelling.mutateAsync(notification.id);
      showFlash('success', t('notificationsPage.cancelled'));
    } catch (caught) {
      showFlash('error', medsErrorText(t, caught, 'errors.cancelNotification'));
    }
  };

  return (
    <>
      <FlashMessage flash={flash} />
      <ScreenStatus loading={loading && !list} error={error} onRetry={reload} />

      {list && list.notifications.length === 0 && !error && (
        <div className="empty-state" data-testid="empty-state">
          <p className="empty-title">{t('notificationsPage.empty')}</p>
          <p className="empty-hint">{t('notificationsPage.emptyHint')}</p>
          <Link to="/medications" className="button button-primary">
            {t('notificationsPage.goToMedications')}
          </Link>
        </div>
      )}

      {list && list.notifications.length > 0 && (
        <ul className="notification-list" aria-busy={loading} data-testid="notification-list">
          {list.notifications.map((notification) => (
            <NotificationRow
              key={notification.id}
              notification={notification}
              busy={busy === notification.id}
              onCancel={() => void cancel(notification)}
            />
          ))}
        </ul>
      )}
    </>
  );
}

interface NotificationRowProps {
  notification: ScheduledNotification;
  busy: boolean;
  onCancel: () => void;
}

function NotificationRow({ notification, busy, onCancel }: NotificationRowProps) {
  const { t } = useTranslation('meds');
  const { t: tn } = useTranslation('notify');
  const format = useMedsFormat();
  const name = notification.medication_name;
  const key = notification.kind in TITLE_KEYS ? TITLE_KEYS[notification.kind] : 'dose';
  const title = !name ? notification.title : t(`notificationsPage.titles.${key}`, { name });
  return (
    <li className="notification-row" data-testid="notification-row">
      <div className="notification-main">
        <div className="notification-heading">
          <h3 className="notification-title">{title}</h3>
          <span className={STATUS_CLASS[notification.status]} data-testid="notification-status">
            {t(`notificationsPage.status.${notification.status}`)}
          </span>
          {notification.answered_at && (
            <span
              className="badge badge-on"
              data-testid="notification-done"
              title={tn('scheduled.answeredAt', { time: format.dateTime(notification.answered_at) })}
            >
              {tn('scheduled.done')}
            </span>
          )}
        </div>
        <p className="notification-medication">{notification.medication_name}</p>
        <dl className="notification-times">
          <div>
            <dt>{t('notificationsPage.scheduledTime')}</dt>
            <dd data-testid="notification-scheduled-time">{format.dateTime(notification.scheduled_time)}</dd>
          </div>
          <div>
            <dt>{t('notificationsPage.reminderTime')}</dt>
            <dd data-testid="notification-reminder-time">{format.dateTime(notification.reminder_time)}</dd>
          </div>
        </dl>
        {notification.message && (
          <p className="notification-message" data-testid="notification-message">
            {notification.message}
          </p>
        )}
        {notification.status === 'failed' && notification.failure_reason && (
          <p className="notification-failure" data-testid="notification-failure">
            {tn('scheduled.failureReason', { reason: notification.failure_reason })}
          </p>
        )}
      </div>
      {notification.status === 'scheduled' && (
        <button
          type="button"
          className="button button-secondary"
          onClick={onCancel}
          disabled={busy}
          aria-label={t('notificationsPage.cancelLabel', { title })}
        >
          {t('notificationsPage.cancel')}
        </button>
      )}
    </li>
  );
}

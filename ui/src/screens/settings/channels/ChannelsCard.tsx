import { useId, useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../../i18n/useTranslation';
import { ApiError } from '../../../api/client';
import type { Channel, ChannelTestResult } from '../../../api/channels';
import { FlashMessage } from '../../../components/FlashMessage';
import { ConfirmDialog } from '../../../components/medications/ConfirmDialog';
import { useMedsFormat } from '../../../components/medications/useMedsFormat';
import { prefsErrorText } from '../../../components/notifications/prefsErrors';
import { useFlash, type Flash } from '../../../components/useFlash';
import { eventKey, hasSettings } from '../../../notifications/channelForm';
import { channelUnusableReason, fieldProblemOf, kindName } from '../../../notifications/channelWords';
import {
  useChannelsQuery,
  useDeleteChannel,
  useRelinkChannel,
  useTestChannel,
  useUpdateChannel,
} from '../../../queries/channels';
import { AddChannelDialog } from './AddChannelDialog';
import { ChannelSettingsDialog } from './ChannelSettingsDialog';
import { TelegramLink } from './TelegramLink';
import '../../../styles/medications.css';

/**
 * Settings → Notifications → Channels: the person's ntfy, Gotify, Telegram and webhook
 * channels, each with its state and last answer, a test, its switch, rename, its settings
 * (not Telegram's, which has none) and delete.
 */
export function ChannelsCard() {
  const { t } = useTranslation('notifyPrefs');
  const titleId = useId();
  const query = useChannelsQuery();
  const [adding, setAdding] = useState(false);
  const [flash, showFlash] = useFlash();
  const channels = query.data;

  // A server without channels: nothing to offer.
  if (query.error instanceof ApiError && query.error.status === 404) return null;

  return (
    <section className="card prefs-section channels-card" aria-labelledby={titleId} data-testid="channels-card">
      <h3 id={titleId}>{t('channels.title')}</h3>
      <p className="field-hint">{t('channels.description')}</p>
      <FlashMessage flash={flash} />
      {query.isPending && <p className="muted">{t('channels.loading')}</p>}
      {query.isError && !channels && (
        <div className="button-row">
          <p className="form-error" role="alert">
            {prefsErrorText(t, query.error, 'channels.loadFailed')}
          </p>
          <button type="button" className="button button-secondary" onClick={() => void query.refetch()}>
            {t('channels.retry')}
          </button>
        </div>
      )}
      {channels?.length === 0 && <p className="muted">{t('channels.none')}</p>}
      {channels && channels.length > 0 && (
        <ul className="channel-list" data-testid="channel-list">
          {channels.map((channel) => (
            <ChannelRow key={channel.id} channel={channel} onFlash={showFlash} />
          ))}
        </ul>
      )}
      {channels && (
        <div className="button-row">
          <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
            {t('channels.add')}
          </button>
        </div>
      )}
      {adding && <AddChannelDialog onClose={() => setAdding(false)} />}
    </section>
  );
}

interface ChannelRowProps {
  channel: Channel;
  onFlash: (kind: Flash['kind'], text: string) => void;
}

/** The state a channel shows: switched off, else active, waiting for its chat, or disabled. */
function stateOf(channel: Channel): 'active' | 'pending' | 'disabled' | 'off' {
  return channel.enabled ? channel.state : 'off';
}

function ChannelRow({ channel, onFlash }: ChannelRowProps) {
  const { t } = useTranslation('notifyPrefs');
  const format = useMedsFormat();
  const update = useUpdateChannel();
  const remove = useDeleteChannel();
  const test = useTestChannel();
  const relink = useRelinkChannel();
  const [tested, setTested] = useState<ChannelTestResult | null>(null);
  const [testError, setTestError] = useState<string | null>(null);
  const [renaming, setRenaming] = useState(false);
  const [changingSettings, setChangingSettings] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [link, setLink] = useState<string | null>(null);
  const state = stateOf(channel);
  const busy = update.isPending || remove.isPending || test.isPending;

  const switchTo = async (enabled: boolean) => {
    try {
      await update.mutateAsync({ id: channel.id, changes: { enabled } });
      onFlash('success', t(enabled ? 'channels.switchedOn' : 'channels.switchedOff', { name: channel.name }));
    } catch (error) {
      onFlash('error', prefsErrorText(t, error, 'channels.changeFailed'));
    }
  };

  const sendTest = async () => {
    setTested(null);
    setTestError(null);
    try {
      setTested(await test.mutateAsync(channel.id));
    } catch (error) {
      setTestError(prefsErrorText(t, error, 'channels.testError'));
    }
  };

  const showLink = async () => {
    try {
      setLink((await relink.mutateAsync(channel.id)).link_url);
    } catch (error) {
      onFlash('error', prefsErrorText(t, error, 'channels.changeFailed'));
    }
  };

  const deleteIt = async () => {
    try {
      await remove.mutateAsync(channel.id);
    } catch (error) {
      throw new Error(prefsErrorText(t, error, 'channels.deleteFailed'), { cause: error });
    }
    setConfirmDelete(false);
    onFlash('success', t('channels.deleted', { name: channel.name }));
  };

  const telegramWaiting =
    channel.kind === 'telegram' && (channel.state === 'pending' || channel.state_reason === 'telegram_stopped');

  return (
    <li className="channel-row" data-testid="channel-row">
      <div className="channel-heading">
        <h4 className="channel-name">{channel.name}</h4>
        <span className="badge badge-neutral" data-testid="channel-kind">
          {kindName(t, channel.kind)}
        </span>
        <span
          className={state === 'active' ? 'badge badge-on' : state === 'pending' ? 'badge badge-warning' : 'badge badge-danger'}
          data-testid="channel-state"
        >
          {t(`channels.state.${state}`)}
        </span>
        <label className="channel-switch">
          <input
            type="checkbox"
            role="switch"
            className="switch"
            checked={channel.enabled}
            disabled={busy}
            aria-label={t('channels.switchLabel', { name: channel.name })}
            onChange={(event) => void switchTo(event.target.checked)}
          />
        </label>
      </div>
      <ChannelSummary channel={channel} />
      {channel.state === 'disabled' && channel.state_reason && (
        <p className="prefs-note" data-testid="channel-disabled-reason">
          {t(`channels.reason.${channel.state_reason}`)}
        </p>
      )}
      {channel.state === 'disabled' && channel.state_reason === 'gone' && channel.enabled && (
        // Its switch is still on: switching it on again is what makes it active (PUT enabled).
        <div>
          <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => void switchTo(true)}>
            {t('channels.reactivate')}
          </button>
        </div>
      )}
      {channel.kind === 'telegram' && channel.state === 'pending' && (
        <p className="prefs-note" data-testid="channel-pending">
          {t('channels.pending')}
        </p>
      )}
      {telegramWaiting &&
        (link ? (
          <TelegramLink url={link} />
        ) : (
          <div>
            <button
              type="button"
              className="button button-secondary button-small"
              disabled={relink.isPending}
              onClick={() => void showLink()}
            >
              {relink.isPending
                ? t('channels.linking')
                : channel.state === 'pending'
                  ? t('channels.showLink')
                  : t('channels.relink')}
            </button>
          </div>
        ))}
      <p className="muted channel-last" data-testid="channel-last-result">
        {channel.last_result
          ? t('channels.lastResult', {
              time: channel.last_result_at ? format.dateTime(channel.last_result_at) : '',
              result: channel.last_result,
            })
          : t('channels.noResult')}
      </p>
      {tested && <TestOutcome channel={channel} result={tested} />}
      {testError && (
        <p className="form-error" role="alert">
          {testError}
        </p>
      )}
      {renaming ? (
        <RenameForm channel={channel} onDone={() => setRenaming(false)} onFlash={onFlash} />
      ) : (
        <div className="button-row channel-actions">
          <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => void sendTest()}>
            {test.isPending ? t('channels.testing') : t('channels.test')}
          </button>
          <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => setRenaming(true)}>
            {t('channels.rename')}
          </button>
          {hasSettings(channel) && (
            <button
              type="button"
              className="button button-secondary button-small"
              disabled={busy}
              onClick={() => setChangingSettings(true)}
            >
              {t('channels.changeSettings')}
            </button>
          )}
          <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => setConfirmDelete(true)}>
            {t('channels.delete')}
          </button>
        </div>
      )}
      {changingSettings && (
        <ChannelSettingsDialog
          channel={channel}
          onClose={() => setChangingSettings(false)}
          onSaved={(saved) => {
            setChangingSettings(false);
            onFlash('success', t('channels.settingsSaved', { name: saved.name }));
          }}
        />
      )}
      {confirmDelete && (
        <ConfirmDialog
          title={t('channels.deleteTitle', { name: channel.name })}
          confirmLabel={t('channels.deleteConfirm')}
          busyLabel={t('channels.deleting')}
          onConfirm={deleteIt}
          onClose={() => setConfirmDelete(false)}
        >
          <p>{t('channels.deleteText', { name: channel.name })}</p>
        </ConfirmDialog>
      )}
    </li>
  );
}

/** Where a channel sends: the settings it shows (never a secret). */
function ChannelSummary({ channel }: { channel: Channel }) {
  const { t } = useTranslation('notifyPrefs');
  const { server_url, topic, url, events } = channel.config;
  let text: string | null = null;
  if (channel.kind === 'ntfy' && server_url && topic) text = t('channels.summary.ntfy', { server: server_url, topic });
  else if (channel.kind === 'gotify') text = server_url;
  else if (channel.kind === 'webhook') text = url;
  return (
    <>
      {text && (
        <p className="channel-summary" data-testid="channel-summary">
          {text}
        </p>
      )}
      {channel.kind === 'webhook' && (
        <p className="field-hint">
          {t('channels.summary.events', { events: events.map((event) => t(eventKey(event))).join(' · ') })}
        </p>
      )}
    </>
  );
}

/** What the channel answered the test, in its own words. */
function TestOutcome({ channel, result }: { channel: Channel; result: ChannelTestResult }) {
  const { t } = useTranslation('notifyPrefs');
  if (result.ok) {
    return (
      <p className="form-success" role="status" data-testid="channel-test-result">
        {t('channels.testOk', { name: channel.name, detail: result.detail })}
      </p>
    );
  }
  const unusable = result.code === 'channel_unavailable' ? channelUnusableReason(channel) : null;
  return (
    <p className="form-error" role="alert" data-testid="channel-test-result">
      {unusable
        ? t('channels.testUnusable', { name: channel.name, reason: t(`channels.unusable.${unusable}`) })
        : t('channels.testFailed', { name: channel.name, detail: result.detail })}
    </p>
  );
}

interface RenameFormProps {
  channel: Channel;
  onDone: () => void;
  onFlash: (kind: Flash['kind'], text: string) => void;
}

function RenameForm({ channel, onDone, onFlash }: RenameFormProps) {
  const { t } = useTranslation('notifyPrefs');
  const id = useId();
  const update = useUpdateChannel();
  const [name, setName] = useState(channel.name);
  const [problem, setProblem] = useState<string | null>(null);

  const save = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setProblem(null);
    try {
      const saved = await update.mutateAsync({ id: channel.id, changes: { name } });
      onFlash('success', t('channels.renamed', { name: saved.name }));
      onDone();
    } catch (error) {
      setProblem(fieldProblemOf(t, error)?.text ?? prefsErrorText(t, error, 'channels.changeFailed'));
    }
  };

  return (
    <form className="channel-rename" noValidate onSubmit={(event) => void save(event)}>
      <div className="field">
        <label htmlFor={id}>{t('channels.nameLabel', { name: channel.name })}</label>
        <input
          id={id}
          value={name}
          autoFocus
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-error` : undefined}
          onChange={(event) => setName(event.target.value)}
        />
        {problem && (
          <p id={`${id}-error`} className="field-error" role="alert">
            {problem}
          </p>
        )}
      </div>
      <div className="button-row">
        <button type="submit" className="button button-primary button-small" disabled={update.isPending}>
          {update.isPending ? t('channels.saving') : t('channels.save')}
        </button>
        <button type="button" className="button button-secondary button-small" onClick={onDone} disabled={update.isPending}>
          {t('channels.cancel')}
        </button>
      </div>
    </form>
  );
}

// What the server says happened to a notification, in the person's language: the server
// sends codes with their values (delivery results, reminder titles) and keeps its English
// words only for clients that do not know a code.
import type { TFunction } from '../i18n';
import type { CodeParams } from '../api/notifications';

const RESULT_CODES = [
  'push_sent',
  'push_no_device',
  'push_failed',
  'push_off',
  'email_sent',
  'email_queued',
  'fallback_queued',
  'email_failed',
  'email_unavailable',
  'email_unverified',
  'email_off',
  'fallback_skipped',
  'channel_sent',
  'channel_failed',
  'channel_queued',
  'channel_unavailable',
] as const;

const FALLBACK_REASONS = ['email_off', 'fallback_off', 'email_unavailable', 'email_unverified'] as const;

const TITLE_CODES = ['dose', 'dose_repeat', 'low_stock', 'refill', 'batch_expiring', 'batch_expired', 'test'] as const;

function known<T extends string>(codes: readonly T[], code: string | null): T | undefined {
  return codes.find((c) => c === code);
}

/**
 * A delivery step's outcome ("sent to 1 of 2 devices", "not sent by e-mail instead: e-mail
 * notifications are off"); `t` is the notify namespace's. `english` when the code is unknown.
 */
export function deliveryResultText(t: TFunction, code: string | null, params: CodeParams, english: string): string {
  const result = known(RESULT_CODES, code);
  if (!result) return english;
  if (result === 'fallback_skipped') {
    const reason = known(FALLBACK_REASONS, typeof params.reason === 'string' ? params.reason : null);
    if (!reason) return english;
    return t('delivery.result.fallback_skipped', { reason: t(`delivery.reason.${reason}`) });
  }
  if (result.startsWith('channel_')) return channelResultText(t, result, params, english);
  return t(`delivery.result.${result}`, params);
}

/** Why a channel could not be used, from the values its result carries. */
function unusableReason(params: CodeParams): 'off' | 'pending' | 'disabled' | null {
  if (params.enabled === false) return 'off';
  if (params.state === 'pending') return 'pending';
  if (params.state === 'disabled') return 'disabled';
  return null;
}

/**
 * A channel's outcome: the channel's own answer (`detail`, in its words) kept as it came.
 * Without the channel's name (it was deleted) the server's words say it best.
 */
function channelResultText(t: TFunction, code: string, params: CodeParams, english: string): string {
  const name = typeof params.name === 'string' ? params.name : '';
  if (name === '') return english;
  const detail = typeof params.detail === 'string' && params.detail !== '' ? params.detail : english;
  switch (code) {
    case 'channel_sent':
      return t('delivery.result.channel_sent', { name });
    case 'channel_queued':
      return t('delivery.result.channel_queued', { name });
    case 'channel_failed':
      return t(params.retrying === true ? 'delivery.result.channel_failed_retrying' : 'delivery.result.channel_failed', {
        name,
        detail,
      });
    default: {
      const reason = unusableReason(params);
      return reason === null ? english : t('delivery.result.channel_unavailable', { name, reason: t(`delivery.channelReason.${reason}`) });
    }
  }
}

/**
 * A delivery's title in the person's language, or the words it went out with. A dose of
 * someone else in the account names them first, as the notification did ("Tom: …").
 */
export function deliveryTitleText(t: TFunction, code: string, params: CodeParams, sent: string): string {
  const title = known(TITLE_CODES, code);
  if (!title) return sent;
  if (title !== 'test' && typeof params.name !== 'string') return sent;
  const words = t(`delivery.title.${title}`, params);
  if (typeof params.person !== 'string') return words;
  return t('delivery.title.for_person', { person: params.person, title: words });
}

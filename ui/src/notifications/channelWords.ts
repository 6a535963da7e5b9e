// How channels are named on screen: a kind's name, a channel's label ("Phone (ntfy)"), a
// delivery method's name wherever methods are listed, and the channel refusals' texts. `t` is
// the notifyPrefs namespace's throughout.
import type { TFunction } from '../i18n';
import { ApiError } from '../api/client';
import { CHANNEL_KINDS, type Channel } from '../api/channels';
import { channelIdOf, type CodeParams, type DeliveryMethod } from '../api/notifications';

/** "ntfy", "Gotify", "Telegram", "Webhook"; a kind this app does not know as the server wrote it. */
export function kindName(t: TFunction, kind: string | null | undefined): string {
  const known = CHANNEL_KINDS.find((k) => k === kind);
  return known ? t(`channels.kind.${known}`) : (kind ?? '');
}

/** "Phone (ntfy)": a channel's own name and its kind. */
export function channelLabel(t: TFunction, name: string, kind: string | null | undefined): string {
  const kindText = kindName(t, kind);
  return kindText === '' || kindText === name ? name : t('channels.label', { name, kind: kindText });
}

/** The name of a delivery method: push, e-mail, or one of the person's channels. */
export function methodLabel(t: TFunction, method: DeliveryMethod, channels: readonly Channel[] | undefined): string {
  const id = channelIdOf(method);
  if (id === null) return t(`methods.${method === 'email' ? 'email' : 'push'}`);
  const channel = channels?.find((c) => c.id === id);
  return channel ? channelLabel(t, channel.name, channel.kind) : t('channels.unknown', { id });
}

/** The name of the channel a result speaks of, from the values it carries. */
export function resultChannelLabel(t: TFunction, method: DeliveryMethod, params: CodeParams): string {
  if (channelIdOf(method) === null) return methodLabel(t, method, []);
  const name = typeof params.name === 'string' ? params.name : '';
  const kind = typeof params.kind === 'string' ? params.kind : null;
  return name === '' ? methodLabel(t, method, []) : channelLabel(t, name, kind);
}

/** Why a channel cannot take reminders now, or null when it can. */
export function channelUnusableReason(channel: Pick<Channel, 'enabled' | 'state'>): 'off' | 'pending' | 'disabled' | null {
  if (!channel.enabled) return 'off';
  if (channel.state === 'pending') return 'pending';
  if (channel.state === 'disabled') return 'disabled';
  return null;
}

/** The settings a refusal names: the form shows its text beside that field. */
export const CHANNEL_FIELDS = [
  'kind',
  'name',
  'server_url',
  'topic',
  'token',
  'username',
  'password',
  'url',
  'events',
] as const;
export type ChannelField = (typeof CHANNEL_FIELDS)[number];

/** A refusal about one setting: which, and what to do. */
export interface FieldProblem {
  field: ChannelField;
  text: string;
}

/** The setting a channel refusal names, with its text; null when it names none this form has. */
export function fieldProblemOf(t: TFunction, error: unknown): FieldProblem | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code !== 'channel_invalid' && error.code !== 'channel_address_not_allowed') return null;
  const field = CHANNEL_FIELDS.find((f) => f === error.params.field);
  if (!field) return null;
  const text =
    error.code === 'channel_address_not_allowed' ? t('channels.errors.addressNotAllowed') : t(`channels.errors.field.${field}`);
  return { field, text };
}

/** Where a form says a refusal: beside the setting it shows, or above the form. */
export interface Refusal {
  problem: FieldProblem | null;
  error: string | null;
}

/**
 * Where a channel refusal goes: beside its field when the form shows that setting; a setting
 * the form does not show (a newer server's) is said above the form, after `failed` ("The
 * channel could not be added"). Null for any other failure.
 */
export function refusalOf(t: TFunction, error: unknown, shown: readonly ChannelField[], failed: string): Refusal | null {
  const onField = fieldProblemOf(t, error);
  if (!onField) return null;
  if (shown.includes(onField.field)) return { problem: onField, error: null };
  return { problem: null, error: t('errors.withReason', { error: failed, reason: onField.text }) };
}

// The add-a-channel form without React: what each kind asks for, and the request it makes.
// The server checks every setting (addresses, topic, tokens) and names the one it refuses;
// the form only asks for what a chosen kind of access plainly needs.
import { WEBHOOK_EVENTS, type ChannelKind, type NewChannel, type WebhookEvent } from '../api/channels';
import type { ChannelField } from './channelWords';

/** How an ntfy topic is reached: open, with an access token, or as a user. */
export type NtfyAccess = 'none' | 'token' | 'password';

export interface ChannelForm {
  kind: ChannelKind;
  name: string;
  ntfy: { server_url: string; topic: string; access: NtfyAccess; token: string; username: string; password: string };
  gotify: { server_url: string; token: string };
  webhook: { url: string; events: WebhookEvent[] };
  /** Add the new channel to the delivery methods of the general settings. */
  useForReminders: boolean;
}

/** The public ntfy server, where most people start. */
export const NTFY_DEFAULT_SERVER = 'https://ntfy.sh';

export function emptyChannelForm(): ChannelForm {
  return {
    kind: 'ntfy',
    name: '',
    ntfy: { server_url: NTFY_DEFAULT_SERVER, topic: '', access: 'token', token: '', username: '', password: '' },
    gotify: { server_url: '', token: '' },
    webhook: { url: '', events: [...WEBHOOK_EVENTS] },
    useForReminders: true,
  };
}

/** The setting a form leaves empty though its kind of access needs it, before asking the server. */
export function missingField(form: ChannelForm): ChannelField | null {
  if (form.kind === 'ntfy') {
    if (form.ntfy.access === 'token' && form.ntfy.token.trim() === '') return 'token';
    if (form.ntfy.access === 'password' && form.ntfy.username.trim() === '') return 'username';
    if (form.ntfy.access === 'password' && form.ntfy.password === '') return 'password';
  }
  if (form.kind === 'webhook' && form.webhook.events.length === 0) return 'events';
  return null;
}

/** The settings the form shows for its kind (and kind of access), beside the kind and name. */
export function shownFields(form: ChannelForm): ChannelField[] {
  const always: ChannelField[] = ['kind', 'name'];
  switch (form.kind) {
    case 'ntfy': {
      const access: Record<NtfyAccess, ChannelField[]> = { none: [], token: ['token'], password: ['username', 'password'] };
      return [...always, 'server_url', 'topic', ...access[form.ntfy.access]];
    }
    case 'gotify':
      return [...always, 'server_url', 'token'];
    case 'webhook':
      return [...always, 'url', 'events'];
    case 'telegram':
      return always;
  }
}

/** The body of POST /api/channels: the chosen kind's settings only. */
export function channelRequest(form: ChannelForm): NewChannel {
  const name = form.name.trim();
  switch (form.kind) {
    case 'ntfy': {
      const { server_url, topic, access, token, username, password } = form.ntfy;
      const config: Record<string, string> = { server_url: server_url.trim(), topic: topic.trim() };
      if (access === 'token') config.token = token.trim();
      if (access === 'password') Object.assign(config, { username: username.trim(), password });
      return { kind: 'ntfy', name, config };
    }
    case 'gotify':
      return { kind: 'gotify', name, config: { server_url: form.gotify.server_url.trim(), token: form.gotify.token.trim() } };
    case 'webhook':
      return {
        kind: 'webhook',
        name,
        config: { url: form.webhook.url.trim(), events: WEBHOOK_EVENTS.filter((e) => form.webhook.events.includes(e)) },
      };
    case 'telegram':
      return { kind: 'telegram', name, config: {} };
  }
}

/** An event's translation key: i18next reads dots as nesting. */
export function eventKey(event: WebhookEvent): string {
  return `channels.event.${event.replace('.', '_')}`;
}

// The channel forms without React: what each kind asks for, and the request it makes, when a
// channel is added and when its settings are changed. The server checks every setting
// (addresses, topic, tokens) and names the one it refuses; the form only asks for what a
// chosen kind of access plainly needs.
import {
  WEBHOOK_EVENTS,
  type Channel,
  type ChannelConfigChange,
  type ChannelKind,
  type NewChannel,
  type WebhookEvent,
} from '../api/channels';
import type { ChannelField } from './channelWords';

/** How an ntfy topic is reached: open, with an access token, or as a user. */
export type NtfyAccess = 'none' | 'token' | 'password';

export interface ChannelForm {
  kind: ChannelKind;
  name: string;
  ntfy: {
    server_url: string;
    topic: string;
    access: NtfyAccess;
    token: string;
    username: string;
    password: string;
    /** Changing a channel: take its saved token away (sent as `"token": null`). */
    removeToken: boolean;
  };
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
    ntfy: { server_url: NTFY_DEFAULT_SERVER, topic: '', access: 'token', token: '', username: '', password: '', removeToken: false },
    gotify: { server_url: '', token: '' },
    webhook: { url: '', events: [...WEBHOOK_EVENTS] },
    useForReminders: true,
  };
}

/** The secret a changed channel keeps when its field is left empty; null when adding one. */
export type KeptSecret = 'token' | 'password' | null;

/**
 * The setting a form leaves empty though its kind of access needs it, before asking the server.
 * A secret the channel keeps (`kept`) may be left empty.
 */
export function missingField(form: ChannelForm, kept: KeptSecret = null): ChannelField | null {
  if (form.kind === 'ntfy') {
    const { access, token, username, password } = form.ntfy;
    if (access === 'token' && token.trim() === '' && kept !== 'token') return 'token';
    if (access === 'password' && username.trim() === '') return 'username';
    if (access === 'password' && password === '' && kept !== 'password') return 'password';
  }
  if (form.kind === 'webhook' && form.webhook.events.length === 0) return 'events';
  return null;
}

/** The settings of the form's kind (and kind of access): what changing a channel shows. */
export function settingFields(form: ChannelForm): ChannelField[] {
  switch (form.kind) {
    case 'ntfy': {
      const access: Record<NtfyAccess, ChannelField[]> = { none: [], token: ['token'], password: ['username', 'password'] };
      return ['server_url', 'topic', ...access[form.ntfy.access]];
    }
    case 'gotify':
      return ['server_url', 'token'];
    case 'webhook':
      return ['url', 'events'];
    case 'telegram':
      return [];
  }
}

/** The settings the add form shows: the kind, the name, and the kind's settings. */
export function shownFields(form: ChannelForm): ChannelField[] {
  return ['kind', 'name', ...settingFields(form)];
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

/** Whether a channel has settings a person can change (a Telegram channel has none). */
export function hasSettings(channel: Pick<Channel, 'kind'>): boolean {
  return channel.kind !== 'telegram';
}

/** How a saved ntfy channel is reached: as a user, with its token, or openly. */
function ntfyAccessOf(channel: Channel): NtfyAccess {
  if (channel.config.username) return 'password';
  return channel.secret_set ? 'token' : 'none';
}

/** The settings form of a saved channel: what its `config` shows; token and password empty. */
export function channelFormOf(channel: Channel): ChannelForm {
  const empty = emptyChannelForm();
  const { server_url, topic, username, url, events } = channel.config;
  return {
    kind: channel.kind,
    name: channel.name,
    ntfy: { ...empty.ntfy, server_url: server_url ?? '', topic: topic ?? '', access: ntfyAccessOf(channel), username: username ?? '' },
    gotify: { server_url: server_url ?? '', token: '' },
    webhook: { url: url ?? '', events: WEBHOOK_EVENTS.filter((event) => events.includes(event)) },
    useForReminders: false,
  };
}

/**
 * The secret a channel keeps when the form leaves its field empty: its saved token or
 * password, as long as the kind of access stays the one it was saved with.
 */
export function keptSecret(channel: Channel, form: ChannelForm): KeptSecret {
  if (!channel.secret_set) return null;
  if (channel.kind === 'gotify') return 'token';
  if (channel.kind !== 'ntfy') return null;
  const saved = ntfyAccessOf(channel);
  return saved !== 'none' && saved === form.ntfy.access ? saved : null;
}

/**
 * The `config` of PUT /api/channels/{id}: the kind's required settings, and the others only
 * where the form changed them. The server keeps what is left out, a secret left empty
 * included; `null` takes a setting away.
 */
export function channelChangeRequest(channel: Channel, form: ChannelForm): ChannelConfigChange {
  const saved = channelFormOf(channel);
  switch (channel.kind) {
    case 'ntfy': {
      const now = form.ntfy;
      const before = saved.ntfy;
      const config: ChannelConfigChange = { server_url: now.server_url.trim(), topic: now.topic.trim() };
      // A user name left in place would make the server read the secret as its password.
      if (before.access === 'password' && now.access !== 'password') config.username = null;
      switch (now.access) {
        case 'none':
          if (before.access !== 'none') config.token = null;
          break;
        case 'token':
          if (now.removeToken && keptSecret(channel, form) === 'token') config.token = null;
          else if (now.token.trim() !== '') config.token = now.token.trim();
          break;
        case 'password':
          if (before.access !== 'password' || now.username.trim() !== before.username) config.username = now.username.trim();
          if (now.password !== '') config.password = now.password;
          break;
      }
      return config;
    }
    case 'gotify': {
      const config: ChannelConfigChange = { server_url: form.gotify.server_url.trim() };
      if (form.gotify.token.trim() !== '') config.token = form.gotify.token.trim();
      return config;
    }
    case 'webhook': {
      const config: ChannelConfigChange = { url: form.webhook.url.trim() };
      const events = WEBHOOK_EVENTS.filter((e) => form.webhook.events.includes(e));
      if (events.join() !== saved.webhook.events.join()) config.events = events;
      return config;
    }
    case 'telegram':
      return {};
  }
}

/** An event's translation key: the texts read dots as nesting. */
export function eventKey(event: WebhookEvent): string {
  return `channels.event.${event.replace('.', '_')}`;
}

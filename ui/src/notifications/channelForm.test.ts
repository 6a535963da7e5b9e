import { describe, expect, it } from 'vitest';
import { parseChannel, type Channel } from '../api/channels';
import { channelChangeRequest, channelFormOf, keptSecret, missingField, type ChannelForm } from './channelForm';

function ntfy(config: Record<string, string>, secretSet = true): Channel {
  return parseChannel({ id: 5, kind: 'ntfy', name: 'Phone', config, secret_set: secretSet });
}

/** The form of a saved channel with some of its ntfy settings changed. */
function changed(channel: Channel, changes: Partial<ChannelForm['ntfy']>): ChannelForm {
  const form = channelFormOf(channel);
  return { ...form, ntfy: { ...form.ntfy, ...changes } };
}

const byToken = ntfy({ server_url: 'https://ntfy.example', topic: 'pills' });
const asUser = ntfy({ server_url: 'https://ntfy.example', topic: 'pills', username: 'robin' });
const open = ntfy({ server_url: 'https://ntfy.example', topic: 'pills' }, false);

describe('changing an ntfy channel', () => {
  it('starts from the access it was saved with, its secrets empty', () => {
    expect(channelFormOf(byToken).ntfy).toMatchObject({ access: 'token', token: '', password: '', removeToken: false });
    expect(channelFormOf(asUser).ntfy).toMatchObject({ access: 'password', username: 'robin', password: '' });
    expect(channelFormOf(open).ntfy.access).toBe('none');
  });

  it('keeps a saved secret only while the kind of access stays', () => {
    expect(keptSecret(byToken, channelFormOf(byToken))).toBe('token');
    expect(keptSecret(asUser, channelFormOf(asUser))).toBe('password');
    expect(keptSecret(byToken, changed(byToken, { access: 'password' }))).toBeNull();
    expect(keptSecret(open, changed(open, { access: 'token' }))).toBeNull();
    expect(missingField(channelFormOf(byToken), 'token')).toBeNull();
    expect(missingField(changed(byToken, { access: 'password', username: 'robin' }), null)).toBe('password');
  });

  it('sends the user name only when it changed, and the password only when typed', () => {
    expect(channelChangeRequest(asUser, channelFormOf(asUser))).toEqual({ server_url: 'https://ntfy.example', topic: 'pills' });
    expect(channelChangeRequest(asUser, changed(asUser, { username: ' sam ' }))).toEqual({
      server_url: 'https://ntfy.example',
      topic: 'pills',
      username: 'sam',
    });
  });

  it('takes the user name away when access changes to a token, and both away for an open topic', () => {
    expect(channelChangeRequest(asUser, changed(asUser, { access: 'token', token: 'tk_new' }))).toEqual({
      server_url: 'https://ntfy.example',
      topic: 'pills',
      username: null,
      token: 'tk_new',
    });
    expect(channelChangeRequest(asUser, changed(asUser, { access: 'none' }))).toEqual({
      server_url: 'https://ntfy.example',
      topic: 'pills',
      username: null,
      token: null,
    });
    expect(channelChangeRequest(byToken, changed(byToken, { access: 'none' }))).toEqual({
      server_url: 'https://ntfy.example',
      topic: 'pills',
      token: null,
    });
  });

  it('sends a user and password chosen instead of a token', () => {
    expect(channelChangeRequest(byToken, changed(byToken, { access: 'password', username: 'robin', password: 'pw' }))).toEqual({
      server_url: 'https://ntfy.example',
      topic: 'pills',
      username: 'robin',
      password: 'pw',
    });
  });
});

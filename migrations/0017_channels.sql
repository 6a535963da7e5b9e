-- Channels (issue 24): reminders to ntfy, Gotify, Telegram and signed webhooks.

-- A person's channels. `config` holds what may be shown (server, topic, user name, URL,
-- events) as JSON; `secret` (an access token, a password, a webhook's signing secret) is
-- written, used and never answered.
CREATE TABLE channels (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind            TEXT    NOT NULL CHECK (kind = 'ntfy' OR kind = 'gotify' OR kind = 'telegram' OR kind = 'webhook'),
    name            TEXT    NOT NULL,
    config          TEXT    NOT NULL DEFAULT '{}',
    secret          TEXT,
    enabled         INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    -- pending: a Telegram chat not linked yet; disabled: the endpoint said it is gone (410),
    -- or the chat stopped the bot; `state_reason` says which, for the app.
    state           TEXT    NOT NULL DEFAULT 'active' CHECK (state = 'active' OR state = 'pending' OR state = 'disabled'),
    state_reason    TEXT,
    -- Telegram: the SHA-256 of the one-time /start code, until it is used, and the chat.
    link_code_hash  TEXT UNIQUE,
    link_expires_at TEXT,
    chat_id         INTEGER,
    created_at      TEXT    NOT NULL,
    -- The last send's outcome, for the channel list.
    last_result     TEXT,
    last_result_at  TEXT
) STRICT;
CREATE INDEX channels_user ON channels (user_id);

-- Every message to a channel, written in the same transaction as what it is about and sent
-- by the channel queue with retries. `idempotency_key` is the same for every attempt (ntfy's
-- sequence id, the webhook-id), so a receiver that deduplicates shows a resend once.
CREATE TABLE channel_sends (
    id              INTEGER PRIMARY KEY,
    channel_id      INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    reminder_id     INTEGER REFERENCES reminders (id) ON DELETE SET NULL,
    -- The reminder's delivery round (0 the first sending, n the n-th repeat).
    round           INTEGER,
    escalation_id   INTEGER REFERENCES escalations (id) ON DELETE CASCADE,
    -- reminder.due, reminder.handled, dose.logged, dose.missed, stock.low,
    -- escalation.sent or test.
    event           TEXT    NOT NULL,
    -- For the delivery history: reminder, repeat, low_stock or test (NULL: not recorded).
    delivery_kind   TEXT,
    title           TEXT    NOT NULL,
    medication_name TEXT,
    fallback        INTEGER NOT NULL DEFAULT 0 CHECK (fallback IN (0, 1)),
    -- No push delivered the round: the first message of it a channel takes marks the
    -- reminder sent; when none can, it fails.
    decides         INTEGER NOT NULL DEFAULT 0 CHECK (decides IN (0, 1)),
    -- The message as JSON (title, body, links, priority, the event's data).
    message         TEXT    NOT NULL,
    idempotency_key TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    -- Retries stop after this time (a webhook is tried for 24 hours).
    give_up_at      TEXT    NOT NULL,
    next_attempt_at TEXT,
    sending_since   TEXT,
    delivered_at    TEXT,
    failed_at       TEXT,
    last_error      TEXT,
    -- What the channel calls the message (a Telegram message id), to edit it later.
    remote_id       TEXT
) STRICT;
CREATE INDEX channel_sends_due ON channel_sends (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX channel_sends_reminder ON channel_sends (reminder_id, round) WHERE reminder_id IS NOT NULL;
CREATE UNIQUE INDEX channel_sends_once ON channel_sends (channel_id, reminder_id, round, event)
    WHERE reminder_id IS NOT NULL;

-- The delivery history names channels: `channel` is push, email or channel:<id>; the
-- channel's kind and name stay when the channel is deleted.
CREATE TABLE deliveries_v17 (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    reminder_id     INTEGER REFERENCES reminders (id) ON DELETE SET NULL,
    -- Checks written as comparisons, not `IN (…)` (see 0009_plain_checks).
    kind            TEXT    NOT NULL CHECK (kind = 'reminder' OR kind = 'repeat' OR kind = 'low_stock' OR kind = 'test'),
    title           TEXT    NOT NULL,
    medication_name TEXT,
    channel         TEXT    NOT NULL CHECK (channel = 'push' OR channel = 'email' OR channel GLOB 'channel:[1-9]*'),
    attempted_at    TEXT    NOT NULL,
    result          TEXT    NOT NULL CHECK (result = 'sent' OR result = 'failed'),
    error           TEXT,
    fallback        INTEGER NOT NULL DEFAULT 0 CHECK (fallback IN (0, 1)),
    result_code     TEXT,
    result_params   TEXT,
    channel_kind    TEXT,
    channel_name    TEXT
) STRICT;
INSERT INTO deliveries_v17 (id, user_id, reminder_id, kind, title, medication_name, channel, attempted_at,
                            result, error, fallback, result_code, result_params)
SELECT id, user_id, reminder_id, kind, title, medication_name, channel, attempted_at,
       result, error, fallback, result_code, result_params
FROM deliveries;
DROP TABLE deliveries;
ALTER TABLE deliveries_v17 RENAME TO deliveries;
CREATE INDEX deliveries_user_time ON deliveries (user_id, attempted_at DESC, id DESC);

-- Delivery of reminders (DESIGN §4): preferences, push subscriptions, take links and the
-- delivery history. Reminders are rebuilt so that a deleted medication's sent reminders
-- (and their delivery history) stay, under the medication's name.
CREATE TABLE reminders_v5 (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    medication_id   INTEGER REFERENCES medications (id) ON DELETE SET NULL,
    medication_name TEXT    NOT NULL,
    -- A planned dose, a one-off dose reminder someone set, or a low-stock alert.
    kind            TEXT    NOT NULL DEFAULT 'dose' CHECK (kind IN ('dose', 'one_off', 'low_stock')),
    scheduled_time  TEXT    NOT NULL,
    reminder_time   TEXT    NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'sent', 'cancelled', 'failed')),
    message         TEXT,
    created_at      TEXT    NOT NULL,
    -- When the dispatcher acts next: the reminder time, a retry after a failed round, or
    -- a repeat of a sent reminder nobody answered. NULL once nothing is left to do.
    next_attempt_at TEXT,
    -- Failed delivery rounds so far, and repeats already sent.
    attempts        INTEGER NOT NULL DEFAULT 0,
    repeats_sent    INTEGER NOT NULL DEFAULT 0,
    -- A dispatcher working on the row holds it until then; a crash lets the claim lapse.
    claimed_until   TEXT,
    sent_at         TEXT,
    -- When a logged dose answered it, and which history entry did.
    answered_at     TEXT,
    history_id      INTEGER REFERENCES dose_history (id) ON DELETE SET NULL,
    failure_reason  TEXT,
    UNIQUE (medication_id, kind, scheduled_time)
) STRICT;

-- Version 4 planned reminders but sent none: those already past stay unsent (failed, with
-- the reason) instead of going out, or expiring, in a burst on the first start.
INSERT INTO reminders_v5 (id, user_id, medication_id, medication_name, scheduled_time, reminder_time,
                          status, created_at, next_attempt_at, failure_reason)
SELECT r.id, r.user_id, r.medication_id, m.name, r.scheduled_time, r.reminder_time,
       CASE WHEN r.status = 'scheduled' AND r.reminder_time < strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
            THEN 'failed' ELSE r.status END,
       r.created_at,
       CASE WHEN r.status = 'scheduled' AND r.reminder_time >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
            THEN r.reminder_time END,
       CASE WHEN r.status = 'scheduled' AND r.reminder_time < strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
            THEN 'due before this version could send reminders' END
FROM reminders r JOIN medications m ON m.id = r.medication_id;

DROP TABLE reminders;
ALTER TABLE reminders_v5 RENAME TO reminders;
CREATE INDEX reminders_user_time ON reminders (user_id, scheduled_time);
CREATE INDEX reminders_user_status_time ON reminders (user_id, status, scheduled_time);
CREATE INDEX reminders_next ON reminders (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX reminders_medication_unanswered ON reminders (medication_id, scheduled_time) WHERE answered_at IS NULL;

-- Global notification preferences (SPEC §3), one row per user once saved.
CREATE TABLE notification_preferences (
    user_id                 INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    reminders_enabled       INTEGER NOT NULL DEFAULT 1 CHECK (reminders_enabled IN (0, 1)),
    email_enabled           INTEGER NOT NULL DEFAULT 0 CHECK (email_enabled IN (0, 1)),
    push_enabled            INTEGER NOT NULL DEFAULT 1 CHECK (push_enabled IN (0, 1)),
    sound_enabled           INTEGER NOT NULL DEFAULT 1 CHECK (sound_enabled IN (0, 1)),
    vibration_enabled       INTEGER NOT NULL DEFAULT 1 CHECK (vibration_enabled IN (0, 1)),
    lead_minutes            INTEGER NOT NULL DEFAULT 15,
    -- Comma-separated: push, email.
    delivery_methods        TEXT    NOT NULL DEFAULT 'push',
    repeat_interval_minutes INTEGER NOT NULL DEFAULT 10,
    repeat_max              INTEGER NOT NULL DEFAULT 3
) STRICT;

-- A medication's own notification preferences; NULL columns follow the global ones.
CREATE TABLE medication_notification_preferences (
    medication_id    INTEGER PRIMARY KEY REFERENCES medications (id) ON DELETE CASCADE,
    delivery_methods TEXT,
    lead_minutes     INTEGER,
    custom_message   TEXT
) STRICT;

CREATE TABLE push_subscriptions (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    endpoint        TEXT    NOT NULL UNIQUE,
    p256dh          TEXT    NOT NULL,
    auth            TEXT    NOT NULL,
    user_agent      TEXT,
    created_at      TEXT    NOT NULL,
    last_success_at TEXT
) STRICT;
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);

-- One-tap take links: only the SHA-256 of each token is kept.
CREATE TABLE take_tokens (
    token_hash  TEXT    PRIMARY KEY,
    reminder_id INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    expires_at  TEXT    NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX take_tokens_reminder ON take_tokens (reminder_id);
CREATE INDEX take_tokens_expiry ON take_tokens (expires_at);

-- Every delivery attempt, per channel: the Notifications page's History tab.
CREATE TABLE deliveries (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    reminder_id     INTEGER REFERENCES reminders (id) ON DELETE SET NULL,
    kind            TEXT    NOT NULL CHECK (kind IN ('reminder', 'repeat', 'low_stock', 'test')),
    title           TEXT    NOT NULL,
    medication_name TEXT,
    channel         TEXT    NOT NULL CHECK (channel IN ('push', 'email')),
    attempted_at    TEXT    NOT NULL,
    result          TEXT    NOT NULL CHECK (result IN ('sent', 'failed')),
    error           TEXT,
    fallback        INTEGER NOT NULL DEFAULT 0 CHECK (fallback IN (0, 1))
) STRICT;
CREATE INDEX deliveries_user_time ON deliveries (user_id, attempted_at DESC, id DESC);

-- Low-stock alerts go out once per crossing of the threshold.
ALTER TABLE inventories ADD COLUMN low_stock_alerted INTEGER NOT NULL DEFAULT 0;

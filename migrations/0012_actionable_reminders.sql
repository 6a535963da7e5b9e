-- Reminders a person can act on (issue 15).

-- Snooze sends a reminder again later: `snoozed_until` is then, and `round_offset` the
-- delivery rounds used before it, so that every round keeps its own e-mail and push Topic.
ALTER TABLE reminders ADD COLUMN snoozed_until TEXT;
ALTER TABLE reminders ADD COLUMN round_offset INTEGER NOT NULL DEFAULT 0;
-- The engine's grace check: unanswered planned doses by their time.
CREATE INDEX reminders_grace ON reminders (scheduled_time) WHERE answered_at IS NULL AND kind = 'dose';

-- The devices whose push service accepted a reminder's notification (and the round's
-- Topic): they get a withdrawal once the reminder is handled anywhere.
CREATE TABLE reminder_devices (
    reminder_id     INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    subscription_id INTEGER NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    topic           TEXT    NOT NULL,
    PRIMARY KEY (reminder_id, subscription_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX reminder_devices_subscription ON reminder_devices (subscription_id);

-- Withdrawals waiting to be pushed, written with what handled the reminder, so that one
-- lost to a crash still goes out. Best effort: a failed one is not retried.
CREATE TABLE push_withdrawals (
    reminder_id     INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    subscription_id INTEGER NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    topic           TEXT    NOT NULL,
    outcome         TEXT    NOT NULL CHECK (outcome = 'taken' OR outcome = 'skipped' OR outcome = 'snoozed' OR outcome = 'missed'),
    created_at      TEXT    NOT NULL,
    PRIMARY KEY (reminder_id, subscription_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX push_withdrawals_subscription ON push_withdrawals (subscription_id);

-- Push and e-mail reminders say "Time for your 08:00 medicines", without names.
ALTER TABLE notification_preferences ADD COLUMN hide_medication_names INTEGER NOT NULL DEFAULT 0
    CHECK (hide_medication_names = 0 OR hide_medication_names = 1);

-- A person's private calendar feed: only the SHA-256 of its secret token is kept.
CREATE TABLE calendar_feeds (
    user_id    INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT    NOT NULL UNIQUE,
    created_at TEXT    NOT NULL
) STRICT;

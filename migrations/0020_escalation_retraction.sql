-- A carer's alert about a dose the engine recorded missed while the clock was ahead, and
-- whose grace has not run out at the corrected time (issue 26): the alert is withdrawn
-- (`retracted_at`) and no longer counts as the one alert per dose and carer, so a dose
-- missed for real later alerts that carer again, once. SQLite cannot change a table's
-- UNIQUE constraint in place: the table is made anew with the same ids.
CREATE TABLE escalations_next (
    id           INTEGER PRIMARY KEY,
    reminder_id  INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    carer_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status       TEXT    NOT NULL DEFAULT 'pending'
        CHECK (status = 'pending' OR status = 'sent' OR status = 'withdrawn' OR status = 'failed'),
    created_at   TEXT    NOT NULL,
    sent_at      TEXT,
    -- When the clock went back to before the dose's grace ran out: the alert no longer holds.
    retracted_at TEXT
) STRICT;
INSERT INTO escalations_next (id, reminder_id, carer_id, status, created_at, sent_at)
    SELECT id, reminder_id, carer_id, status, created_at, sent_at FROM escalations;

-- Dropping the old table would delete the e-mails and channel messages that name an alert
-- (ON DELETE CASCADE): they let go of it meanwhile and take it back from the new table.
CREATE TEMP TABLE escalation_links AS
    SELECT 'mail' AS kind, id, escalation_id FROM mail_outbox WHERE escalation_id IS NOT NULL
    UNION ALL
    SELECT 'channel' AS kind, id, escalation_id FROM channel_sends WHERE escalation_id IS NOT NULL;
UPDATE mail_outbox SET escalation_id = NULL WHERE escalation_id IS NOT NULL;
UPDATE channel_sends SET escalation_id = NULL WHERE escalation_id IS NOT NULL;
DROP TABLE escalations;
ALTER TABLE escalations_next RENAME TO escalations;
UPDATE mail_outbox SET escalation_id =
    (SELECT l.escalation_id FROM escalation_links l WHERE l.kind = 'mail' AND l.id = mail_outbox.id)
    WHERE id IN (SELECT id FROM escalation_links WHERE kind = 'mail');
UPDATE channel_sends SET escalation_id =
    (SELECT l.escalation_id FROM escalation_links l WHERE l.kind = 'channel' AND l.id = channel_sends.id)
    WHERE id IN (SELECT id FROM escalation_links WHERE kind = 'channel');
DROP TABLE escalation_links;

-- One alert that holds per dose and carer: never sent twice.
CREATE UNIQUE INDEX escalations_once ON escalations (reminder_id, carer_id) WHERE retracted_at IS NULL;
CREATE INDEX escalations_carer ON escalations (carer_id);
CREATE INDEX escalations_pending ON escalations (reminder_id) WHERE status = 'pending';

-- A carer's device showing such an alert is told to close it (outcome `corrected`). Nothing
-- names a withdrawal: the queue is made anew with the wider check.
CREATE TABLE push_withdrawals_next (
    reminder_id     INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    subscription_id INTEGER NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    topic           TEXT    NOT NULL,
    outcome         TEXT    NOT NULL CHECK (outcome = 'taken' OR outcome = 'skipped' OR outcome = 'snoozed'
                                            OR outcome = 'missed' OR outcome = 'corrected'),
    created_at      TEXT    NOT NULL,
    PRIMARY KEY (reminder_id, subscription_id)
) STRICT, WITHOUT ROWID;
INSERT INTO push_withdrawals_next SELECT reminder_id, subscription_id, topic, outcome, created_at FROM push_withdrawals;
DROP TABLE push_withdrawals;
ALTER TABLE push_withdrawals_next RENAME TO push_withdrawals;
CREATE INDEX push_withdrawals_subscription ON push_withdrawals (subscription_id);

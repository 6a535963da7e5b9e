-- Reminders: each dose instance of a schedule, planned ahead (DESIGN §4). The unique key
-- makes a duplicate reminder for one dose impossible.
CREATE TABLE reminders (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id        INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    medication_id  INTEGER NOT NULL REFERENCES medications (id) ON DELETE CASCADE,
    -- When the dose is due, and when to remind (the lead before it); UTC.
    scheduled_time TEXT    NOT NULL,
    reminder_time  TEXT    NOT NULL,
    status         TEXT    NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'sent', 'cancelled', 'failed')),
    created_at     TEXT    NOT NULL,
    UNIQUE (medication_id, scheduled_time)
) STRICT;
CREATE INDEX reminders_user_time ON reminders (user_id, scheduled_time);
CREATE INDEX reminders_due ON reminders (status, reminder_time);

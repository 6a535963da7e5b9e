-- The e-mail queue (issue 13): every e-mail the server sends on its own (verification links,
-- sign-in codes, reminders) is a row here first, written in the same transaction as what
-- it is about, and a worker sends it with retries. A slow or silent mail server then delays
-- no request, no push and no shutdown, and a queued mail survives a restart.
CREATE TABLE mail_outbox (
    id              INTEGER PRIMARY KEY,
    kind            TEXT    NOT NULL CHECK (kind IN ('account', 'reminder')),
    user_id         INTEGER REFERENCES users (id) ON DELETE CASCADE,
    -- A reminder's mail: its reminder and delivery round (0 the first sending, n the n-th
    -- repeat). One mail per round, so a dispatcher that plans a round again queues nothing new.
    reminder_id     INTEGER REFERENCES reminders (id) ON DELETE SET NULL,
    round           INTEGER,
    -- For the delivery history: reminder, repeat or low_stock; the title and medication.
    delivery_kind   TEXT,
    title           TEXT,
    medication_name TEXT,
    -- Sent because every push of the round failed.
    fallback        INTEGER NOT NULL DEFAULT 0 CHECK (fallback IN (0, 1)),
    -- No push delivered the round: this mail's outcome decides the reminder's (which the
    -- queue holds meanwhile), and these are the other channels' errors for its reason.
    decides         INTEGER NOT NULL DEFAULT 0 CHECK (decides IN (0, 1)),
    other_errors    TEXT,
    recipient       TEXT    NOT NULL,
    subject         TEXT    NOT NULL,
    -- Emptied once the mail is done: the bodies carry one-use links.
    text_body       TEXT    NOT NULL,
    html_body       TEXT    NOT NULL,
    -- Fixed when queued, so that a resend after a crash is recognisably the same message.
    message_id      TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    max_attempts    INTEGER NOT NULL,
    backoff_seconds INTEGER NOT NULL,
    -- When the worker tries next; NULL once accepted or given up.
    next_attempt_at TEXT,
    -- A worker is talking to the mail server about it since then.
    sending_since   TEXT,
    -- The mail server took it: it is never sent again.
    accepted_at     TEXT,
    failed_at       TEXT,
    last_error      TEXT,
    UNIQUE (reminder_id, round)
) STRICT;
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE next_attempt_at IS NOT NULL;

-- Each push of a reminder's round, written before it is sent and removed with the round's
-- result: after a crash the round is sent again only to devices not known to have it.
CREATE TABLE push_sends (
    reminder_id     INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    round           INTEGER NOT NULL,
    subscription_id INTEGER NOT NULL,
    started_at      TEXT    NOT NULL,
    -- The push service accepted it.
    sent_at         TEXT,
    PRIMARY KEY (reminder_id, round, subscription_id)
) STRICT, WITHOUT ROWID;

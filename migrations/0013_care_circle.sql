-- The care circle (issue 16): the people an account keeps medicines for, the carers who help,
-- who logged each dose, an audit of carers' changes, and missed-dose escalation.

-- The people of an account: its holder (is_self, exactly one, kept by the trigger below) and
-- people without a login. The owner is the account; deleting it deletes its people.
CREATE TABLE people (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        TEXT    NOT NULL,
    is_self     INTEGER NOT NULL DEFAULT 0 CHECK (is_self = 0 OR is_self = 1),
    archived_at TEXT,
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
) STRICT;
CREATE INDEX people_owner ON people (owner_id, id);
CREATE UNIQUE INDEX people_self ON people (owner_id) WHERE is_self = 1;

INSERT INTO people (owner_id, name, is_self, created_at, updated_at)
    SELECT id, trim(first_name || ' ' || last_name), 1, created_at, created_at FROM users;

-- Every account, however made (registration, create-user, import), has its own person.
CREATE TRIGGER users_self_person AFTER INSERT ON users BEGIN
    INSERT INTO people (owner_id, name, is_self, created_at, updated_at)
        VALUES (NEW.id, trim(NEW.first_name || ' ' || NEW.last_name), 1, NEW.created_at, NEW.created_at);
END;

-- A medication belongs to one person; written without one, it is the account holder's.
ALTER TABLE medications ADD COLUMN person_id INTEGER REFERENCES people (id) ON DELETE CASCADE;
UPDATE medications SET person_id = (SELECT p.id FROM people p WHERE p.owner_id = medications.user_id AND p.is_self = 1);
CREATE INDEX medications_person ON medications (person_id, id);
CREATE TRIGGER medications_default_person AFTER INSERT ON medications WHEN NEW.person_id IS NULL BEGIN
    UPDATE medications SET person_id = (SELECT p.id FROM people p WHERE p.owner_id = NEW.user_id AND p.is_self = 1)
        WHERE id = NEW.id;
END;

-- Missed-dose escalation of a medication: {"after_minutes": N, "carers": [user ids]}; '{}' is off.
ALTER TABLE medications ADD COLUMN escalation TEXT NOT NULL DEFAULT '{}';

-- Whose dose an entry is (kept when the medication is deleted) and who logged it: the account
-- holder, a carer, or a take link's recipient. The name stays when that account is deleted.
ALTER TABLE dose_history ADD COLUMN person_id INTEGER REFERENCES people (id) ON DELETE CASCADE;
ALTER TABLE dose_history ADD COLUMN logged_by INTEGER REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE dose_history ADD COLUMN logged_by_name TEXT;
UPDATE dose_history SET person_id = coalesce(
    (SELECT m.person_id FROM medications m WHERE m.id = dose_history.medication_id),
    (SELECT p.id FROM people p WHERE p.owner_id = dose_history.user_id AND p.is_self = 1));
CREATE INDEX dose_history_person_time ON dose_history (user_id, person_id, taken_at DESC, id DESC);
CREATE TRIGGER dose_history_default_person AFTER INSERT ON dose_history WHEN NEW.person_id IS NULL BEGIN
    UPDATE dose_history SET person_id = coalesce(
        (SELECT m.person_id FROM medications m WHERE m.id = NEW.medication_id),
        (SELECT p.id FROM people p WHERE p.owner_id = NEW.user_id AND p.is_self = 1))
        WHERE id = NEW.id;
END;

-- Carers of a person, from invitation to acceptance in one row, so its id stays the same.
-- user_id is NULL while invited; token_hash (SHA-256 of the invitation's token) is cleared on
-- acceptance. Deleting the carer's account ends the row; deleting the person (or the owner's
-- account) ends every carer's access.
CREATE TABLE carers (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    person_id   INTEGER NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    email       TEXT    NOT NULL COLLATE NOCASE,
    role        TEXT    NOT NULL CHECK (role = 'view' OR role = 'record' OR role = 'manage'),
    user_id     INTEGER REFERENCES users (id) ON DELETE CASCADE,
    token_hash  TEXT    UNIQUE,
    expires_at  TEXT,
    accepted_at TEXT,
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
) STRICT;
CREATE UNIQUE INDEX carers_person_email ON carers (person_id, email);
CREATE UNIQUE INDEX carers_person_user ON carers (person_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX carers_user ON carers (user_id) WHERE user_id IS NOT NULL;

-- What carers changed, per person, and changes to the circle itself.
CREATE TABLE care_audit (
    id         INTEGER PRIMARY KEY,
    person_id  INTEGER NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    actor_id   INTEGER REFERENCES users (id) ON DELETE SET NULL,
    actor_name TEXT    NOT NULL,
    action     TEXT    NOT NULL,
    subject    TEXT    NOT NULL DEFAULT '',
    created_at TEXT    NOT NULL
) STRICT;
CREATE INDEX care_audit_person ON care_audit (person_id, id);

-- Who answered a reminder (the dose's logger), for the others' take links.
ALTER TABLE reminders ADD COLUMN answered_by INTEGER REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE reminders ADD COLUMN answered_by_name TEXT;

-- A take link's recipient: NULL is the account holder, else the carer it was sent to.
ALTER TABLE take_tokens ADD COLUMN user_id INTEGER REFERENCES users (id) ON DELETE CASCADE;

-- One escalation per dose and carer: never sent twice.
CREATE TABLE escalations (
    id          INTEGER PRIMARY KEY,
    reminder_id INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    carer_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status      TEXT    NOT NULL DEFAULT 'pending'
        CHECK (status = 'pending' OR status = 'sent' OR status = 'withdrawn' OR status = 'failed'),
    created_at  TEXT    NOT NULL,
    sent_at     TEXT,
    UNIQUE (reminder_id, carer_id)
) STRICT;
CREATE INDEX escalations_carer ON escalations (carer_id);

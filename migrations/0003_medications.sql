-- Per-user settings the server needs: the time zone wall-clock times mean, and the
-- default reminder time of schedules without their own times.
CREATE TABLE user_settings (
    user_id               INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    timezone              TEXT    NOT NULL DEFAULT 'UTC',
    default_reminder_time TEXT    NOT NULL DEFAULT '09:00',
    -- The rest of the app settings (language, formats, theme, …) as the client sent them.
    preferences           TEXT    NOT NULL DEFAULT '{}'
) STRICT;

CREATE TABLE medications (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id           INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name              TEXT    NOT NULL,
    unit              TEXT    NOT NULL,
    frequency         TEXT    NOT NULL CHECK (frequency IN ('daily', 'twice_daily', 'weekly', 'monthly', 'as_needed')),
    color             TEXT    NOT NULL,
    icon              TEXT    NOT NULL,
    notes             TEXT    NOT NULL DEFAULT '',
    -- Quantities are integer thousandths throughout.
    default_quantity  INTEGER NOT NULL,
    -- Schedule extension: times of day ["08:00"] and ISO weekdays [1, 5] as JSON.
    schedule_times    TEXT    NOT NULL DEFAULT '[]',
    schedule_weekdays TEXT    NOT NULL DEFAULT '[]',
    start_date        TEXT    NOT NULL,
    created_at        TEXT    NOT NULL,
    updated_at        TEXT    NOT NULL
) STRICT;
CREATE INDEX medications_user ON medications (user_id, id);

CREATE TABLE inventories (
    medication_id      INTEGER PRIMARY KEY REFERENCES medications (id) ON DELETE CASCADE,
    enabled            INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
    inventory_type     TEXT    NOT NULL DEFAULT 'discrete' CHECK (inventory_type IN ('continuous', 'discrete')),
    container_type     TEXT,
    container_quantity INTEGER,
    container_size     INTEGER,
    container_unit     TEXT,
    item_quantity      INTEGER,
    item_strength      INTEGER,
    item_unit          TEXT,
    current_quantity   INTEGER NOT NULL DEFAULT 0,
    reminder_threshold INTEGER NOT NULL DEFAULT 10000,
    updated_at         TEXT    NOT NULL
) STRICT;

-- Every change of a medication's stock, with the balance after it.
CREATE TABLE stock_ledger (
    id            INTEGER PRIMARY KEY,
    medication_id INTEGER NOT NULL REFERENCES medications (id) ON DELETE CASCADE,
    change        INTEGER NOT NULL,
    balance       INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('initial', 'dose', 'dose_reverted', 'adjustment', 'correction')),
    reason        TEXT,
    history_id    INTEGER,
    created_at    TEXT    NOT NULL
) STRICT;
CREATE INDEX stock_ledger_medication ON stock_ledger (medication_id, id);

-- Dose history. Entries keep the medication's name and unit, so a deleted medication's
-- history stays readable.
CREATE TABLE dose_history (
    id               INTEGER PRIMARY KEY,
    user_id          INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    medication_id    INTEGER REFERENCES medications (id) ON DELETE SET NULL,
    medication_name  TEXT    NOT NULL,
    medication_unit  TEXT    NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN ('taken', 'skipped', 'missed')),
    taken_at         TEXT    NOT NULL,
    quantity         INTEGER NOT NULL,
    dosage_unit      TEXT    NOT NULL,
    dosage           TEXT,
    affect_inventory INTEGER NOT NULL CHECK (affect_inventory IN (0, 1)),
    -- Stock this entry has taken out right now (0 unless taken with inventory on).
    stock_used       INTEGER NOT NULL DEFAULT 0,
    -- The reminder this dose answers, if any.
    dosage_id        INTEGER,
    created_at       TEXT    NOT NULL
) STRICT;
CREATE INDEX dose_history_user_time ON dose_history (user_id, taken_at DESC, id DESC);
CREATE INDEX dose_history_medication_time ON dose_history (user_id, medication_id, taken_at DESC, id DESC);
CREATE INDEX dose_history_medication_status_time ON dose_history (user_id, medication_id, status, taken_at DESC, id DESC);
CREATE INDEX dose_history_status_time ON dose_history (user_id, status, taken_at DESC, id DESC);

-- Entries per user and status, kept by triggers, so the history's page count needs no
-- scan of a long history.
CREATE TABLE history_counts (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status  TEXT    NOT NULL,
    entries INTEGER NOT NULL,
    PRIMARY KEY (user_id, status)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER dose_history_counted AFTER INSERT ON dose_history BEGIN
    INSERT INTO history_counts (user_id, status, entries) VALUES (NEW.user_id, NEW.status, 1)
        ON CONFLICT (user_id, status) DO UPDATE SET entries = entries + 1;
END;

CREATE TRIGGER dose_history_uncounted AFTER DELETE ON dose_history BEGIN
    UPDATE history_counts SET entries = entries - 1 WHERE user_id = OLD.user_id AND status = OLD.status;
END;

CREATE TRIGGER dose_history_recounted AFTER UPDATE OF status ON dose_history WHEN OLD.status <> NEW.status BEGIN
    UPDATE history_counts SET entries = entries - 1 WHERE user_id = OLD.user_id AND status = OLD.status;
    INSERT INTO history_counts (user_id, status, entries) VALUES (NEW.user_id, NEW.status, 1)
        ON CONFLICT (user_id, status) DO UPDATE SET entries = entries + 1;
END;

-- A large import writes its history in short transactions, so that other people's writes
-- pass between them, and shows it all at once: its rows carry the import's id and stay out
-- of sight (the `dose_history` view) while that id is in `imports_pending`. The last
-- transaction removes the id; an import that fails, or a server that stops, leaves rows
-- that nobody sees and that the next start deletes.
CREATE TABLE imports_pending (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    started_at TEXT    NOT NULL
) STRICT;

-- The rows themselves; SQLite carries the indexes and triggers over with the name.
ALTER TABLE dose_history RENAME TO dose_history_rows;
-- The import that wrote a row (NULL: written otherwise). Not a reference: the id outlives
-- its `imports_pending` row.
ALTER TABLE dose_history_rows ADD COLUMN import_id INTEGER;
-- An import's rows, found again when it is discarded.
CREATE INDEX dose_history_rows_import ON dose_history_rows (import_id) WHERE import_id IS NOT NULL;

-- A staged import's rows counted as history_counts counts them (kept by the triggers below),
-- added to history_counts in one statement of a few rows when the import is made visible.
CREATE TABLE import_counts (
    import_id     INTEGER NOT NULL,
    medication_id INTEGER NOT NULL,
    status        TEXT    NOT NULL,
    entries       INTEGER NOT NULL,
    PRIMARY KEY (import_id, medication_id, status)
) WITHOUT ROWID;

-- What every read sees: all rows but those of an import still being written.
CREATE VIEW dose_history AS
SELECT id, user_id, medication_id, medication_name, medication_unit, status, taken_at, quantity,
       dosage_unit, dosage, affect_inventory, stock_used, dosage_id, created_at, person_id,
       logged_by, logged_by_name
FROM dose_history_rows
WHERE import_id IS NULL OR import_id NOT IN (SELECT id FROM imports_pending);

-- history_counts counts what a reader sees, import_counts what an import has staged.
DROP TRIGGER dose_history_counted;
DROP TRIGGER dose_history_uncounted;
DROP TRIGGER dose_history_recounted;

CREATE TRIGGER dose_history_counted AFTER INSERT ON dose_history_rows WHEN NEW.import_id IS NULL BEGIN
    INSERT INTO history_counts (user_id, medication_id, status, entries)
    VALUES (NEW.user_id, coalesce(NEW.medication_id, 0), NEW.status, 1)
    ON CONFLICT (user_id, medication_id, status) DO UPDATE SET entries = entries + 1;
END;

CREATE TRIGGER dose_history_uncounted AFTER DELETE ON dose_history_rows
WHEN OLD.import_id IS NULL OR OLD.import_id NOT IN (SELECT id FROM imports_pending) BEGIN
    UPDATE history_counts SET entries = entries - 1
    WHERE user_id = OLD.user_id AND medication_id = coalesce(OLD.medication_id, 0) AND status = OLD.status;
END;

CREATE TRIGGER dose_history_recounted AFTER UPDATE OF status, medication_id ON dose_history_rows
WHEN (OLD.status IS NOT NEW.status OR OLD.medication_id IS NOT NEW.medication_id)
    AND (OLD.import_id IS NULL OR OLD.import_id NOT IN (SELECT id FROM imports_pending)) BEGIN
    UPDATE history_counts SET entries = entries - 1
    WHERE user_id = OLD.user_id AND medication_id = coalesce(OLD.medication_id, 0) AND status = OLD.status;
    INSERT INTO history_counts (user_id, medication_id, status, entries)
    VALUES (NEW.user_id, coalesce(NEW.medication_id, 0), NEW.status, 1)
    ON CONFLICT (user_id, medication_id, status) DO UPDATE SET entries = entries + 1;
END;

CREATE TRIGGER dose_history_staged AFTER INSERT ON dose_history_rows WHEN NEW.import_id IS NOT NULL BEGIN
    INSERT INTO import_counts (import_id, medication_id, status, entries)
    VALUES (NEW.import_id, coalesce(NEW.medication_id, 0), NEW.status, 1)
    ON CONFLICT (import_id, medication_id, status) DO UPDATE SET entries = entries + 1;
END;

CREATE TRIGGER dose_history_unstaged AFTER DELETE ON dose_history_rows
WHEN OLD.import_id IN (SELECT id FROM imports_pending) BEGIN
    UPDATE import_counts SET entries = entries - 1
    WHERE import_id = OLD.import_id AND medication_id = coalesce(OLD.medication_id, 0) AND status = OLD.status;
END;

-- A staged row whose medication is deleted meanwhile (its medication_id set to NULL).
CREATE TRIGGER dose_history_restaged AFTER UPDATE OF status, medication_id ON dose_history_rows
WHEN (OLD.status IS NOT NEW.status OR OLD.medication_id IS NOT NEW.medication_id)
    AND OLD.import_id IN (SELECT id FROM imports_pending) BEGIN
    UPDATE import_counts SET entries = entries - 1
    WHERE import_id = OLD.import_id AND medication_id = coalesce(OLD.medication_id, 0) AND status = OLD.status;
    INSERT INTO import_counts (import_id, medication_id, status, entries)
    VALUES (NEW.import_id, coalesce(NEW.medication_id, 0), NEW.status, 1)
    ON CONFLICT (import_id, medication_id, status) DO UPDATE SET entries = entries + 1;
END;

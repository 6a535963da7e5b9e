-- Entries per user, medication and status, kept by triggers: a history page filtered by
-- medication and/or status knows its total without counting a long history (the counts per
-- user and status alone left the filtered page counting every matching row).
DROP TRIGGER dose_history_counted;
DROP TRIGGER dose_history_uncounted;
DROP TRIGGER dose_history_recounted;
DROP TABLE history_counts;

CREATE TABLE history_counts (
    user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- 0 for the entries of deleted medications (dose_history.medication_id is NULL).
    medication_id INTEGER NOT NULL,
    status        TEXT    NOT NULL,
    entries       INTEGER NOT NULL,
    PRIMARY KEY (user_id, medication_id, status)
) WITHOUT ROWID;

INSERT INTO history_counts (user_id, medication_id, status, entries)
SELECT user_id, coalesce(medication_id, 0), status, count(*) FROM dose_history GROUP BY 1, 2, 3;

CREATE TRIGGER dose_history_counted AFTER INSERT ON dose_history BEGIN
    INSERT INTO history_counts (user_id, medication_id, status, entries)
    VALUES (NEW.user_id, coalesce(NEW.medication_id, 0), NEW.status, 1)
    ON CONFLICT (user_id, medication_id, status) DO UPDATE SET entries = entries + 1;
END;

CREATE TRIGGER dose_history_uncounted AFTER DELETE ON dose_history BEGIN
    UPDATE history_counts SET entries = entries - 1
    WHERE user_id = OLD.user_id AND medication_id = coalesce(OLD.medication_id, 0) AND status = OLD.status;
END;

-- A corrected status, or a deleted medication (its entries' medication_id is set to NULL).
CREATE TRIGGER dose_history_recounted AFTER UPDATE OF status, medication_id ON dose_history
WHEN OLD.status IS NOT NEW.status OR OLD.medication_id IS NOT NEW.medication_id BEGIN
    UPDATE history_counts SET entries = entries - 1
    WHERE user_id = OLD.user_id AND medication_id = coalesce(OLD.medication_id, 0) AND status = OLD.status;
    INSERT INTO history_counts (user_id, medication_id, status, entries)
    VALUES (NEW.user_id, coalesce(NEW.medication_id, 0), NEW.status, 1)
    ON CONFLICT (user_id, medication_id, status) DO UPDATE SET entries = entries + 1;
END;

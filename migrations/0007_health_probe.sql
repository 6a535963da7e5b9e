-- /health proves that the database takes writes by rewriting this one row (a real commit,
-- fsync included); nothing else reads it.
CREATE TABLE health_probe (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    written_at TEXT    NOT NULL
) STRICT;

-- Forgotten-password links (issue 23): only the SHA-256 of the token is stored; a link works
-- once, for an hour, and a newer one replaces the older.
CREATE TABLE password_resets (
    token_hash TEXT    PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at TEXT    NOT NULL
) STRICT;
CREATE INDEX password_resets_user ON password_resets (user_id);

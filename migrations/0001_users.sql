-- Accounts. E-mail addresses compare case-insensitively.
CREATE TABLE users (
    -- AUTOINCREMENT: an id is never reused, so a deleted account's token cannot match a new one.
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    email          TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    password_hash  TEXT    NOT NULL,
    first_name     TEXT    NOT NULL DEFAULT '',
    last_name      TEXT    NOT NULL DEFAULT '',
    email_verified INTEGER NOT NULL DEFAULT 0 CHECK (email_verified IN (0, 1)),
    -- Bumped by password change, sign-out everywhere and 2FA changes: old tokens die.
    token_version  INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL
) STRICT;

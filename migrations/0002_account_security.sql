-- E-mail verification links: only the SHA-256 of the token is stored.
CREATE TABLE email_verifications (
    token_hash TEXT    PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at TEXT    NOT NULL
) STRICT;
CREATE INDEX email_verifications_user ON email_verifications (user_id);

-- Two-factor settings, one row per user that has touched them.
CREATE TABLE two_factor (
    user_id             INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    email_enabled       INTEGER NOT NULL DEFAULT 0 CHECK (email_enabled IN (0, 1)),
    totp_secret         TEXT,
    -- Set by setup-totp, moved to totp_secret once a code from the app proves it.
    totp_pending_secret TEXT,
    -- The last TOTP step accepted: a code is never accepted twice.
    totp_last_step      INTEGER NOT NULL DEFAULT 0,
    preferred_method    TEXT CHECK (preferred_method IN ('email', 'totp'))
) STRICT;

-- Single-use backup codes, keyed hashes only.
CREATE TABLE backup_codes (
    id        INTEGER PRIMARY KEY,
    user_id   INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT    NOT NULL,
    used_at   TEXT
) STRICT;
CREATE INDEX backup_codes_user ON backup_codes (user_id);

-- The pending e-mail sign-in code of a user (a new one replaces the old).
CREATE TABLE email_codes (
    user_id    INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    code_hash  TEXT    NOT NULL,
    expires_at TEXT    NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0
) STRICT;

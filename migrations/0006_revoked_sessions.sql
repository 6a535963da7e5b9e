-- Session tokens signed out one by one (POST /api/auth/logout), kept until they would have
-- expired. `id` is the token's `jti`.
CREATE TABLE revoked_sessions (
    id         TEXT    PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- Unix seconds: the token's own expiry.
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX revoked_sessions_expiry ON revoked_sessions (expires_at);

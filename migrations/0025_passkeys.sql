-- Passkeys (issue 27): WebAuthn credentials that sign an account in without its e-mail or
-- password, and count as a second factor after the password.

-- The account's WebAuthn user handle: a random UUID the authenticator keeps beside each
-- passkey and hands back at a sign-in that names no account. Not the e-mail address, which
-- can change and would tell the authenticator more than it needs.
CREATE TABLE passkey_handles (
    user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    handle  TEXT    NOT NULL UNIQUE
) STRICT;

CREATE TABLE passkeys (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          TEXT    NOT NULL,
    -- The authenticator's credential id (base64url): one passkey, one account.
    credential_id TEXT    NOT NULL UNIQUE,
    -- The public key, the signature counter and flags as webauthn-rs keeps them (JSON),
    -- written anew at each use.
    credential    TEXT    NOT NULL,
    created_at    TEXT    NOT NULL,
    last_used_at  TEXT
) STRICT;
CREATE INDEX passkeys_user ON passkeys (user_id, id);

-- Accounts signed in through an OpenID Connect provider (issue 27): an identity is the
-- provider's issuer and its `sub` for the person, never the e-mail address, which a
-- provider may let people change.
CREATE TABLE oidc_identities (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    issuer       TEXT    NOT NULL,
    subject      TEXT    NOT NULL,
    -- The address the provider gave when the identity was linked (shown in Settings).
    email        TEXT,
    created_at   TEXT    NOT NULL,
    last_used_at TEXT,
    UNIQUE (issuer, subject)
) STRICT;
CREATE INDEX oidc_identities_user ON oidc_identities (user_id);

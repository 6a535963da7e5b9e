-- API tokens (issue 27): scripts and Home Assistant act for an account as a carer of its own
-- people would, within the token's scope. Only the SHA-256 of a token is kept (it is 32
-- random bytes, so no slow hash is needed); revoking deletes the row.
CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT    NOT NULL,
    -- What a carer of this role may do: read (view), record, manage.
    scope        TEXT    NOT NULL CHECK (scope = 'read' OR scope = 'record' OR scope = 'manage'),
    token_hash   TEXT    NOT NULL UNIQUE,
    -- 1: every person of the account, also those added later; 0: only api_token_people's.
    all_people   INTEGER NOT NULL DEFAULT 1 CHECK (all_people IN (0, 1)),
    created_at   TEXT    NOT NULL,
    last_used_at TEXT,
    expires_at   TEXT
) STRICT;
CREATE INDEX api_tokens_user ON api_tokens (user_id, id);

-- The people a limited token reaches; deleting a person takes it off every token.
CREATE TABLE api_token_people (
    token_id  INTEGER NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    person_id INTEGER NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    PRIMARY KEY (token_id, person_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX api_token_people_person ON api_token_people (person_id);

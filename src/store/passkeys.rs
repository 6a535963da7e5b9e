//! Passkeys (WebAuthn credentials) and each account's WebAuthn user handle.

use rusqlite::{Connection, OptionalExtension, Row, params};
use webauthn_rs::prelude::Passkey;

use super::{json_at, stamp_at, stamp_or_null_at};
use crate::db::Stamp;

/// A stored passkey: its name and times, and the credential webauthn-rs checks signatures with.
#[derive(Debug, Clone)]
pub struct StoredPasskey {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    pub credential: Passkey,
    pub created_at: Stamp,
    pub last_used_at: Option<Stamp>,
}

const SELECT: &str = "SELECT id, user_id, name, credential, created_at, last_used_at FROM passkeys";

fn from_row(row: &Row) -> rusqlite::Result<StoredPasskey> {
    let id: i64 = row.get(0)?;
    Ok(StoredPasskey {
        id,
        user_id: row.get(1)?,
        name: row.get(2)?,
        credential: json_at(row, 3, "passkeys", id)?,
        created_at: stamp_at(row, 4, "passkeys", id)?,
        last_used_at: stamp_or_null_at(row, 5, "passkeys", id)?,
    })
}

/// An account's passkeys, oldest first.
pub fn list(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<StoredPasskey>> {
    conn.prepare_cached(&format!("{SELECT} WHERE user_id = ?1 ORDER BY id"))?
        .query_map([user_id], from_row)?
        .collect()
}

/// How many passkeys an account has.
pub fn count(conn: &Connection, user_id: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT count(*) FROM passkeys WHERE user_id = ?1")?
        .query_row([user_id], |row| row.get(0))
}

/// The passkey an authenticator names by its credential id (base64url), of any account.
pub fn by_credential_id(conn: &Connection, credential_id: &str) -> rusqlite::Result<Option<StoredPasskey>> {
    conn.prepare_cached(&format!("{SELECT} WHERE credential_id = ?1"))?
        .query_row([credential_id], from_row)
        .optional()
}

/// Stores a new passkey; `None` when its credential id is stored already (for any account).
pub fn insert(
    conn: &Connection,
    user_id: i64,
    name: &str,
    credential_id: &str,
    credential: &Passkey,
    now: Stamp,
) -> rusqlite::Result<Option<i64>> {
    let json =
        serde_json::to_string(credential).map_err(|e| rusqlite::Error::ToSqlConversionFailure(e.into()))?;
    let inserted = conn
        .prepare_cached(
            "INSERT INTO passkeys (user_id, name, credential_id, credential, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (credential_id) DO NOTHING",
        )?
        .execute(params![user_id, name, credential_id, json, now])?;
    Ok((inserted == 1).then(|| conn.last_insert_rowid()))
}

/// Keeps the credential as it is after a sign-in (its counter) and when it was used.
pub fn record_use(conn: &Connection, id: i64, credential: &Passkey, now: Stamp) -> rusqlite::Result<()> {
    let json =
        serde_json::to_string(credential).map_err(|e| rusqlite::Error::ToSqlConversionFailure(e.into()))?;
    conn.prepare_cached("UPDATE passkeys SET credential = ?2, last_used_at = ?3 WHERE id = ?1")?
        .execute(params![id, json, now])?;
    Ok(())
}

/// Deletes one of the account's passkeys; false when the account has none with this id.
pub fn delete(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM passkeys WHERE id = ?1 AND user_id = ?2")?
        .execute([id, user_id])?
        == 1)
}

/// The account's WebAuthn user handle, if it has one yet.
pub fn handle_of(conn: &Connection, user_id: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT handle FROM passkey_handles WHERE user_id = ?1")?
        .query_row([user_id], |row| row.get(0))
        .optional()
}

/// Gives the account `handle` unless it has one; answers the one it has then.
pub fn keep_handle(conn: &Connection, user_id: i64, handle: &str) -> rusqlite::Result<String> {
    conn.prepare_cached(
        "INSERT INTO passkey_handles (user_id, handle) VALUES (?1, ?2) ON CONFLICT (user_id) DO NOTHING",
    )?
    .execute(params![user_id, handle])?;
    conn.prepare_cached("SELECT handle FROM passkey_handles WHERE user_id = ?1")?
        .query_row([user_id], |row| row.get(0))
}

/// Whether an OpenID Connect identity is still linked to the account (another way to sign
/// in when its password is unusable).
pub fn has_oidc_identity(conn: &Connection, user_id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM oidc_identities WHERE user_id = ?1)")?
        .query_row([user_id], |row| row.get(0))
}

//! Identities at an OpenID Connect provider, linked to accounts.

use rusqlite::{Connection, OptionalExtension, params};

use crate::db::Stamp;
use crate::store::{stamp_at, stamp_or_null_at};

/// An identity linked to an account.
pub struct IdentityRow {
    pub id: i64,
    pub issuer: String,
    pub email: Option<String>,
    pub created_at: Stamp,
    pub last_used_at: Option<Stamp>,
}

/// The account an identity (issuer and `sub`) is linked to.
pub fn user_of(conn: &Connection, issuer: &str, subject: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT user_id FROM oidc_identities WHERE issuer = ?1 AND subject = ?2")?
        .query_row([issuer, subject], |row| row.get(0))
        .optional()
}

/// Links an identity to an account; `false` when it is linked already (to any account).
pub fn link(
    conn: &Connection,
    user_id: i64,
    issuer: &str,
    subject: &str,
    email: Option<&str>,
    now: Stamp,
) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached(
            "INSERT INTO oidc_identities (user_id, issuer, subject, email, created_at, last_used_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5) ON CONFLICT (issuer, subject) DO NOTHING",
        )?
        .execute(params![user_id, issuer, subject, email, now])?
        == 1)
}

/// Notes a sign-in with the identity.
pub fn used(conn: &Connection, issuer: &str, subject: &str, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE oidc_identities SET last_used_at = ?3 WHERE issuer = ?1 AND subject = ?2")?
        .execute(params![issuer, subject, now])?;
    Ok(())
}

/// The identities linked to an account, oldest first.
pub fn of_user(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<IdentityRow>> {
    conn.prepare_cached(
        "SELECT id, issuer, email, created_at, last_used_at FROM oidc_identities
         WHERE user_id = ?1 ORDER BY created_at, id",
    )?
    .query_map([user_id], |row| {
        let id = row.get(0)?;
        Ok(IdentityRow {
            id,
            issuer: row.get(1)?,
            email: row.get(2)?,
            created_at: stamp_at(row, 3, "oidc_identities", id)?,
            last_used_at: stamp_or_null_at(row, 4, "oidc_identities", id)?,
        })
    })?
    .collect()
}

/// Unlinks one of the account's identities; `false` when it has none with this id.
pub fn unlink(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM oidc_identities WHERE id = ?1 AND user_id = ?2")?
        .execute([id, user_id])?
        == 1)
}

/// Whether the account can sign in without its provider's identities: a password of its own
/// (an account made for a provider's identity has an unusable one, `!oidc:…`, until its holder
/// sets one), or a passkey.
pub fn other_sign_in_remains(conn: &Connection, user_id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT substr(password_hash, 1, 6) <> '!oidc:'
                OR EXISTS (SELECT 1 FROM passkeys WHERE passkeys.user_id = users.id)
         FROM users WHERE id = ?1",
    )?
    .query_row([user_id], |row| row.get(0))
    .optional()
    .map(|usable| usable.unwrap_or(false))
}

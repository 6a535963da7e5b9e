//! Identities at an OpenID Connect provider, linked to accounts.

use rusqlite::{Connection, OptionalExtension, params};

use crate::db::Stamp;

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

//! Carers of a person, from invitation to acceptance: one `carers` row each, known by the
//! SHA-256 of its invitation's token until it is accepted.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{stamp_at, stamp_or_null_at};
use crate::db::Stamp;

#[derive(Debug, Clone)]
pub struct Carer {
    pub id: i64,
    pub person_id: i64,
    pub email: String,
    /// The carer's name as others see it; None until accepted.
    pub name: Option<String>,
    /// `view`, `record` or `manage`.
    pub role: String,
    /// The carer's account; None while invited.
    pub user_id: Option<i64>,
    pub expires_at: Option<Stamp>,
    pub accepted_at: Option<Stamp>,
    pub created_at: Stamp,
}

const SELECT: &str = "SELECT c.id, c.person_id, c.email,
        CASE WHEN u.id IS NULL THEN NULL
             ELSE coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email) END,
        c.role, c.user_id, c.expires_at, c.accepted_at, c.created_at
     FROM carers c LEFT JOIN users u ON u.id = c.user_id";

fn from_row(row: &Row) -> rusqlite::Result<Carer> {
    Ok(Carer {
        id: row.get(0)?,
        person_id: row.get(1)?,
        email: row.get(2)?,
        name: row.get(3)?,
        role: row.get(4)?,
        user_id: row.get(5)?,
        expires_at: stamp_or_null_at(row, 6, "carers", row.get(0)?)?,
        accepted_at: stamp_or_null_at(row, 7, "carers", row.get(0)?)?,
        created_at: stamp_at(row, 8, "carers", row.get(0)?)?,
    })
}

/// A person's carers and invitations, oldest first.
pub fn list(conn: &Connection, person_id: i64) -> rusqlite::Result<Vec<Carer>> {
    conn.prepare_cached(&format!("{SELECT} WHERE c.person_id = ?1 ORDER BY c.id"))?
        .query_map([person_id], from_row)?
        .collect()
}

/// One carers row of a person.
pub fn find(conn: &Connection, person_id: i64, carer_id: i64) -> rusqlite::Result<Option<Carer>> {
    conn.prepare_cached(&format!("{SELECT} WHERE c.person_id = ?1 AND c.id = ?2"))?
        .query_row([person_id, carer_id], from_row)
        .optional()
}

/// The row of an address for a person (any case), invited or accepted.
pub fn by_email(conn: &Connection, person_id: i64, email: &str) -> rusqlite::Result<Option<Carer>> {
    conn.prepare_cached(&format!("{SELECT} WHERE c.person_id = ?1 AND c.email = ?2"))?
        .query_row(params![person_id, email], from_row)
        .optional()
}

/// The open invitation a token hash names, if it has not expired by `now`.
pub fn invitation(conn: &Connection, token_hash: &str, now: Stamp) -> rusqlite::Result<Option<Carer>> {
    conn.prepare_cached(&format!(
        "{SELECT} WHERE c.token_hash = ?1 AND c.user_id IS NULL AND c.expires_at > ?2"
    ))?
    .query_row(params![token_hash, now], from_row)
    .optional()
}

/// Whether a user already cares for a person (an accepted row, whatever its address).
pub fn cares_for(conn: &Connection, person_id: i64, user_id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM carers WHERE person_id = ?1 AND user_id = ?2)")?
        .query_row([person_id, user_id], |row| row.get(0))
}

/// Whether the invitation whose token hashes to `token_hash` is open and was sent to `email`
/// (such an address may register).
pub fn invited(conn: &Connection, email: &str, token_hash: &str, now: Stamp) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM carers
         WHERE email = ?1 AND token_hash = ?2 AND user_id IS NULL AND expires_at > ?3)",
    )?
    .query_row(params![email, token_hash, now], |row| row.get(0))
}

/// A new invitation; answers its id.
pub fn invite(
    conn: &Connection,
    person_id: i64,
    email: &str,
    role: &str,
    token_hash: &str,
    expires_at: &str,
    now: Stamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO carers (person_id, email, role, token_hash, expires_at, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
    )?
    .execute(params![person_id, email, role, token_hash, expires_at, now])?;
    Ok(conn.last_insert_rowid())
}

/// Invites a pending row again: a new token (the old link stops working), expiry and role.
pub fn reinvite(
    conn: &Connection,
    carer_id: i64,
    role: &str,
    token_hash: &str,
    expires_at: &str,
    now: Stamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE carers SET role = ?2, token_hash = ?3, expires_at = ?4, updated_at = ?5
         WHERE id = ?1 AND user_id IS NULL",
    )?
    .execute(params![carer_id, role, token_hash, expires_at, now])?;
    Ok(())
}

/// Accepts an invitation for a user: the token is spent.
pub fn accept(conn: &Connection, carer_id: i64, user_id: i64, now: Stamp) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached(
            "UPDATE carers SET user_id = ?2, token_hash = NULL, expires_at = NULL, accepted_at = ?3, updated_at = ?3
             WHERE id = ?1 AND user_id IS NULL",
        )?
        .execute(params![carer_id, user_id, now])?
        == 1)
}

pub fn set_role(conn: &Connection, carer_id: i64, role: &str, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE carers SET role = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![carer_id, role, now])?;
    Ok(())
}

/// Ends a carer's access, or cancels an invitation.
pub fn delete(conn: &Connection, carer_id: i64) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM carers WHERE id = ?1")?
        .execute([carer_id])?
        == 1)
}

//! Private calendar feeds: one per person, known by the SHA-256 of its secret token.

use rusqlite::{Connection, OptionalExtension, params};

use super::stamp_at;
use crate::db::Stamp;

/// Makes `hash` the person's feed token, replacing any earlier one.
pub fn set(conn: &Connection, user_id: i64, hash: &str, now: Stamp) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO calendar_feeds (user_id, token_hash, created_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at",
        params![user_id, hash, now],
    )?;
    Ok(())
}

/// Revokes the person's feed; false when there was none.
pub fn delete(conn: &Connection, user_id: i64) -> rusqlite::Result<bool> {
    Ok(conn.execute("DELETE FROM calendar_feeds WHERE user_id = ?1", [user_id])? == 1)
}

/// When the person's feed was made, if they have one.
pub fn created_at(conn: &Connection, user_id: i64) -> rusqlite::Result<Option<Stamp>> {
    conn.prepare_cached("SELECT user_id, created_at FROM calendar_feeds WHERE user_id = ?1")?
        .query_row([user_id], |row| stamp_at(row, 1, "calendar_feeds", user_id))
        .optional()
}

/// Whose feed a token hash opens.
pub fn owner(conn: &Connection, hash: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT user_id FROM calendar_feeds WHERE token_hash = ?1")?
        .query_row([hash], |row| row.get(0))
        .optional()
}

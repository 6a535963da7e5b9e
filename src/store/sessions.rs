//! Session tokens signed out one by one, until they expire.

use rusqlite::{Connection, params};

/// Records a signed-out token (a second sign-out of the same token changes nothing).
pub fn revoke(conn: &Connection, id: &str, user_id: i64, expires_at: i64) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT OR IGNORE INTO revoked_sessions (id, user_id, expires_at) VALUES (?1, ?2, ?3)",
        params![id, user_id, expires_at],
    )?;
    Ok(())
}

/// Forgets tokens that have expired by `now` (Unix seconds): they are refused anyway.
pub fn prune(conn: &Connection, now: i64) -> rusqlite::Result<usize> {
    conn.execute("DELETE FROM revoked_sessions WHERE expires_at < ?1", [now])
}

/// Every signed-out token still unexpired at `now`, with its expiry.
pub fn unexpired(conn: &Connection, now: i64) -> rusqlite::Result<Vec<(String, i64)>> {
    let mut statement = conn.prepare("SELECT id, expires_at FROM revoked_sessions WHERE expires_at >= ?1")?;
    statement
        .query_map([now], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect()
}

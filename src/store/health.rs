//! The row `/health` rewrites to prove the database takes writes.

use crate::db::Stamp;
use rusqlite::{Connection, params};

/// Rewrites the probe row in its own transaction.
pub fn write_probe(conn: &Connection, now: Stamp) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO health_probe (id, written_at) VALUES (1, ?1)
         ON CONFLICT (id) DO UPDATE SET written_at = excluded.written_at",
        params![now],
    )?;
    Ok(())
}

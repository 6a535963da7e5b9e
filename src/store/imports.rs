//! An import's history staged out of sight (`imports_pending`, migration 0018): its rows are
//! written in short transactions with the import's id, hidden by the `dose_history` view
//! until `reveal` removes that id, and deleted by `discard_some` when it fails or the server
//! stopped in the middle.

use rusqlite::{Connection, OptionalExtension, params};

use super::history::{self, Entry};
use crate::db::Stamp;

/// Registers an import about to stage rows; answers its id.
pub fn begin(conn: &Connection, user_id: i64, now: Stamp) -> rusqlite::Result<i64> {
    conn.prepare_cached("INSERT INTO imports_pending (user_id, started_at) VALUES (?1, ?2)")?
        .execute(params![user_id, now])?;
    Ok(conn.last_insert_rowid())
}

/// The tables whose ids an import reserves before it writes rows that point to them.
#[derive(Debug, Clone, Copy)]
pub enum Reserved {
    Medications,
    People,
}

impl Reserved {
    fn table(self) -> &'static str {
        match self {
            Reserved::Medications => "medications",
            Reserved::People => "people",
        }
    }
}

/// Takes `count` ids of an AUTOINCREMENT table that no insert will be given: the staged
/// rows point to them before the rows with those ids are written (by `reveal`'s
/// transaction). Answers the first; the others follow it.
pub fn reserve_ids(conn: &Connection, table: Reserved, count: usize) -> rusqlite::Result<i64> {
    let name = table.table();
    let count = i64::try_from(count).unwrap_or(i64::MAX);
    let bumped: Option<i64> = conn
        .prepare_cached("UPDATE sqlite_sequence SET seq = seq + ?2 WHERE name = ?1 RETURNING seq")?
        .query_row(params![name, count], |row| row.get(0))
        .optional()?;
    let last = match bumped {
        Some(last) => last,
        // A table that never had a row has no sequence yet.
        None => {
            let highest: i64 =
                conn.query_row(&format!("SELECT coalesce(max(id), 0) FROM {name}"), [], |row| {
                    row.get(0)
                })?;
            conn.prepare_cached("INSERT INTO sqlite_sequence (name, seq) VALUES (?1, ?2)")?
                .execute(params![name, highest + count])?;
            highest + count
        }
    };
    Ok(last - count + 1)
}

/// Writes entries of an import, out of sight, from the first on, for as long as `budget`
/// allows (at least one): the writer is held that long at most. Answers the new rows' ids,
/// one for each entry written.
///
/// The foreign keys are not checked meanwhile: the rows point to the medications and people
/// the import writes with their reserved ids when it is revealed. The pragmas only take
/// effect outside a transaction, so this begins and commits its own; the checks and the
/// fsync at every commit (`db::open_connection`) are back when it returns, whatever happened.
pub fn stage(
    conn: &mut Connection,
    import_id: i64,
    user_id: i64,
    entries: &[Entry],
    budget: std::time::Duration,
) -> rusqlite::Result<Vec<i64>> {
    let started = std::time::Instant::now();
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    // Staged rows need not survive a power cut (nobody sees them, and the next start deletes
    // them): no fsync at these commits. Revealing them commits with an fsync, which makes
    // them durable with it.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    let written = (|| -> rusqlite::Result<Vec<i64>> {
        let tx = conn.transaction()?;
        let mut ids = Vec::new();
        for e in entries {
            if !ids.is_empty() && started.elapsed() >= budget {
                break;
            }
            ids.push(history::insert_for_import(&tx, user_id, e, Some(import_id))?);
        }
        tx.commit()?;
        Ok(ids)
    })();
    let checks_on = conn.pragma_update(None, "foreign_keys", "ON");
    let durable = conn.pragma_update(None, "synchronous", "FULL");
    let ids = written?;
    checks_on?;
    durable?;
    Ok(ids)
}

/// Makes an import's rows visible to every reader at once, counted in `history_counts` (by
/// the few rows `import_counts` kept for them while they were staged). Runs inside the
/// import's last transaction.
pub fn reveal(conn: &Connection, import_id: i64, user_id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO history_counts (user_id, medication_id, status, entries)
         SELECT ?2, medication_id, status, entries FROM import_counts WHERE import_id = ?1 AND entries <> 0
         ON CONFLICT (user_id, medication_id, status) DO UPDATE SET entries = entries + excluded.entries",
    )?
    .execute(params![import_id, user_id])?;
    forget(conn, import_id)
}

fn forget(conn: &Connection, import_id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM import_counts WHERE import_id = ?1")?
        .execute([import_id])?;
    conn.prepare_cached("DELETE FROM imports_pending WHERE id = ?1")?
        .execute([import_id])?;
    Ok(())
}

/// Deletes up to `limit` staged rows of an unfinished import; when none are left, forgets
/// the import. Answers how many rows went: 0 means it is gone.
pub fn discard_some(conn: &Connection, import_id: i64, limit: usize) -> rusqlite::Result<usize> {
    let deleted = conn
        .prepare_cached(
            "DELETE FROM dose_history_rows WHERE id IN
               (SELECT id FROM dose_history_rows WHERE import_id = ?1 LIMIT ?2)",
        )?
        .execute(params![import_id, i64::try_from(limit).unwrap_or(i64::MAX)])?;
    if deleted == 0 {
        forget(conn, import_id)?;
    }
    Ok(deleted)
}

/// The imports a stopped server left unfinished.
pub fn unfinished(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached("SELECT id FROM imports_pending ORDER BY id")?
        .query_map([], |row| row.get(0))?
        .collect()
}

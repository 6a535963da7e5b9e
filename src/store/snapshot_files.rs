//! The instance's key files inside a snapshot: a table of the snapshot file (never of the
//! live database), written by `pillbox backup` and taken out again by a restore.

use rusqlite::{Connection, OptionalExtension, params};

/// The table of key files in a snapshot; a restore takes it out again.
pub const TABLE: &str = "pillbox_backup_files";

/// Adds the table of key files to a snapshot copy, holding `files` (name, contents).
pub fn write<'a>(
    copy: &Connection,
    files: impl IntoIterator<Item = (&'a str, Vec<u8>)>,
) -> rusqlite::Result<()> {
    copy.execute_batch(&format!(
        "CREATE TABLE {TABLE} (name TEXT PRIMARY KEY, contents BLOB NOT NULL)"
    ))?;
    for (name, contents) in files {
        copy.execute(
            &format!("INSERT INTO {TABLE} (name, contents) VALUES (?1, ?2)"),
            params![name, contents],
        )?;
    }
    Ok(())
}

/// Takes the key files named `names` out of a snapshot being restored and drops their
/// table, so the restored database is the live one's shape; none from a snapshot without
/// the table.
pub fn take(conn: &Connection, names: &[&'static str]) -> rusqlite::Result<Vec<(&'static str, Vec<u8>)>> {
    let has_files: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1)",
        [TABLE],
        |row| row.get(0),
    )?;
    let mut files = Vec::new();
    if !has_files {
        return Ok(files);
    }
    for &name in names {
        let contents: Option<Vec<u8>> = conn
            .query_row(
                &format!("SELECT contents FROM {TABLE} WHERE name = ?1"),
                [name],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(contents) = contents {
            files.push((name, contents));
        }
    }
    conn.execute_batch(&format!("DROP TABLE {TABLE}"))?;
    Ok(files)
}

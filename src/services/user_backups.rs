//! Each person's daily auto-backup (Settings → Medications): while the setting is on, a
//! copy of their export file is written once a day into the data directory, and the last
//! seven are kept for them to download.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::{ErrorCode, ServiceResult, export, not_found};
use crate::files::{PrivateFile, private_dir};

/// How many daily exports are kept per person.
pub const KEEP: usize = 7;
const PREFIX: &str = "pillbox-export-";

/// The folder of one person's exports inside the instance's backups folder.
pub fn dir_for(backups: &Path, user_id: i64) -> PathBuf {
    backups.join("users").join(user_id.to_string())
}

/// A kept daily export.
#[derive(Debug, Serialize, ToSchema)]
pub struct Kept {
    pub name: String,
    pub size: u64,
    pub created_at: String,
}

fn is_export_name(name: &str) -> bool {
    name.strip_prefix(PREFIX)
        .and_then(|rest| rest.strip_suffix(".json"))
        .is_some_and(|date| chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok())
}

/// The person's kept exports, newest first.
pub fn list(dir: &Path) -> Vec<Kept> {
    let mut kept: Vec<Kept> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let meta = entry.metadata().ok()?;
            is_export_name(&name).then(|| Kept {
                created_at: meta
                    .modified()
                    .map(|t| crate::clock::stamp(DateTime::<Utc>::from(t)))
                    .unwrap_or_default(),
                size: meta.len(),
                name,
            })
        })
        .collect();
    kept.sort_by(|a, b| b.name.cmp(&a.name));
    kept
}

/// The path of a kept export by its name; `None` for anything else (no path tricks).
pub fn find(dir: &Path, name: &str) -> Option<PathBuf> {
    let path = dir.join(name);
    (is_export_name(name) && path.is_file()).then_some(path)
}

/// The contents of a kept export by its name.
pub fn read(dir: &Path, name: &str) -> ServiceResult<Vec<u8>> {
    let path = find(dir, name).ok_or_else(|| not_found(ErrorCode::BackupNotFound, "Backup not found"))?;
    Ok(fs::read(path)?)
}

/// Writes today's export (the day in the person's zone) unless it exists, then keeps the
/// newest `KEEP`. Returns the new file, if one was written.
pub fn write_daily(
    conn: &Connection,
    user_id: i64,
    dir: &Path,
    now: DateTime<Utc>,
) -> ServiceResult<Option<PathBuf>> {
    let path = dir.join(export::json_file_name(export::today_for(conn, user_id)?));
    let written = if path.exists() {
        None
    } else {
        private_dir(dir)?;
        let mut file = PrivateFile::create(&path)?;
        export::write_json(conn, user_id, now, &mut std::io::BufWriter::new(&mut file))?;
        file.commit()?;
        Some(path)
    };
    for old in list(dir).into_iter().skip(KEEP) {
        fs::remove_file(dir.join(old.name))?;
    }
    Ok(written)
}

/// Removes every kept export of a person whose account is being deleted.
pub fn remove_all(dir: &Path) -> std::io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_export_names_are_served() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("pillbox-export-2026-01-02.json"), "{}").unwrap();
        assert!(find(dir.path(), "pillbox-export-2026-01-02.json").is_some());
        assert!(find(dir.path(), "../../pillbox.sqlite3").is_none());
        assert!(find(dir.path(), "pillbox-export-../x.json").is_none());
        assert!(find(dir.path(), "pillbox-export-2026-01-03.json").is_none());
    }
}

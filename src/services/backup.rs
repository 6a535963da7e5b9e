//! Instance backups: a consistent snapshot of the whole instance in one SQLite file, and
//! restoring one.
//!
//! A snapshot is `VACUUM INTO` of the live database (consistent while the server writes;
//! copying a WAL database's files is not a backup) plus the instance's key files stored in
//! a table of the copy, so a restore brings back sessions and Web Push subscriptions too.
//! The file stays an ordinary SQLite database that `sqlite3` opens.

use std::fs::{self, File};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::{Connection, OpenFlags};

use super::{Problem, ServiceError, ServiceResult, invalid};
use crate::db::{self, migrations};
use crate::files::{PrivateFile, private_dir, write_private};
use crate::secrets::{JWT_KEY_FILE, VAPID_KEY_FILE};
use crate::store::{snapshot_files, users};

/// The key files a working restore needs.
const INSTANCE_FILES: [&str; 2] = [JWT_KEY_FILE, VAPID_KEY_FILE];
/// Held by `pillbox serve` for as long as it runs.
const LOCK_FILE: &str = "pillbox.lock";
const DAILY_PREFIX: &str = "pillbox-daily-";

/// Writes a snapshot of the database at `database` (with the key files of `data_dir`) to
/// `out`, mode 0600. Returns its size in bytes.
pub fn snapshot(database: &Path, data_dir: &Path, out: &Path) -> ServiceResult<u64> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        private_dir(dir)?;
    }
    let file = PrivateFile::create(out)?;
    let temp = file
        .temp_path()
        .to_str()
        .ok_or_else(|| invalid(format!("{} is not a UTF-8 path", out.display())))?
        .to_owned();
    {
        let source = db::open_connection(database, false)?;
        // The target is the empty private file made above, so it keeps mode 0600.
        db::copy_into(&source, &temp)?;
    }
    {
        let copy = Connection::open(&temp)?;
        let readable = INSTANCE_FILES.into_iter().filter_map(|name| {
            fs::read(data_dir.join(name))
                .ok()
                .map(|contents| (name, contents))
        });
        snapshot_files::write(&copy, readable)?;
    }
    Ok(file.commit()?)
}

/// Holds the data directory for a running server; dropped when the server stops.
pub struct DataDirLock {
    _file: File,
}

/// Takes the data directory for a server, or says that another one has it.
pub fn lock_data_dir(data_dir: &Path) -> ServiceResult<DataDirLock> {
    let path = data_dir.join(LOCK_FILE);
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(DataDirLock { _file: file }),
        Err(fs::TryLockError::WouldBlock) => Err(invalid(format!(
            "another Pillbox server is running on {} (or a restore is under way): stop it first (e.g. `systemctl stop pillbox`)",
            data_dir.display()
        ))),
        Err(fs::TryLockError::Error(e)) => Err(e.into()),
    }
}

/// What a restore did.
pub struct Restored {
    /// Where the database it replaced was kept, if there was one.
    pub replaced: Option<PathBuf>,
    pub migrations: Vec<&'static str>,
    pub files: Vec<&'static str>,
}

/// Restores a snapshot into `data_dir`. Refuses while a server runs there, and anything
/// but a regular file holding an intact Pillbox database of a known schema version (one from
/// a newer Pillbox too); migrates an older one. The replaced database (and any replaced key
/// file) is kept beside it, under a name no other restore has used.
pub fn restore(file: &Path, data_dir: &Path) -> ServiceResult<Restored> {
    private_dir(data_dir)?;
    let _lock = lock_data_dir(data_dir).map_err(|e| match e {
        ServiceError::Invalid(m) => ServiceError::Invalid(Problem {
            message: format!("{m}; nothing was restored"),
            ..m
        }),
        other => other,
    })?;
    let stamp = Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    let database = data_dir.join(db::DATABASE_FILE);
    let incoming = IncomingCopy::of(file, &data_dir.join(format!(".{}.restoring", db::DATABASE_FILE)))?;
    let (migrations, files) = check_and_prepare(&incoming.path, file)?;

    // The live name always holds a complete database: the current one is first linked to
    // its kept name, then the restored one is renamed over it in one step.
    let replaced = if database.exists() {
        {
            // Fold the write-ahead log in, so the kept copy is one complete file.
            let current = db::open_connection(&database, false)?;
            if !db::checkpoint(&current)? {
                return Err(invalid(
                    "the database is in use by another program (a running export or import?): try again; nothing was restored",
                ));
            }
        }
        let kept = link_under_new_name(&database, &format!("{}.replaced-{stamp}", db::DATABASE_FILE))?;
        // The old database may come from a version that left it readable by others.
        crate::files::make_private(&kept)?;
        Some(kept)
    } else {
        None
    };
    if let Err(e) = incoming.replace(&database) {
        // The live database is still in place: its second name is not needed.
        if let Some(kept) = &replaced {
            let _ = fs::remove_file(kept);
        }
        return Err(e.into());
    }
    for suffix in ["-wal", "-shm"] {
        let _ = fs::remove_file(data_dir.join(format!("{}{suffix}", db::DATABASE_FILE)));
    }
    forget_departed_users(&database, &data_dir.join("backups"))?;

    let mut restored_files = Vec::new();
    for (name, contents) in files {
        let path = data_dir.join(name);
        if fs::read(&path).is_ok_and(|current| current == contents) {
            continue;
        }
        if path.exists() {
            let kept = link_under_new_name(&path, &format!("{name}.replaced-{stamp}"))?;
            crate::files::make_private(&kept)?;
        }
        write_private(&path, &contents)?;
        restored_files.push(name);
    }
    File::open(data_dir)?.sync_all()?;
    Ok(Restored {
        replaced,
        migrations,
        files: restored_files,
    })
}

/// The copy of the file being restored, beside the database. Removed (with any file SQLite
/// made beside it) unless it became the database.
struct IncomingCopy {
    path: PathBuf,
    placed: bool,
}

impl IncomingCopy {
    /// Copies `file` to `path`, reading it only if it is a regular file: a device such as
    /// `/dev/zero` never ends and a FIFO waits for a writer.
    fn of(file: &Path, path: &Path) -> ServiceResult<IncomingCopy> {
        let unreadable = |e: std::io::Error| {
            invalid(format!(
                "cannot read {}: {e}; nothing was restored",
                file.display()
            ))
        };
        refuse_unless_regular(file, fs::metadata(file).map_err(unreadable)?.file_type())?;
        // Without blocking: should the name have become a FIFO since, opening it must not
        // wait for a writer. Reads of a regular file are the same either way.
        let mut source = fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(file)
            .map_err(unreadable)?;
        refuse_unless_regular(file, source.metadata().map_err(unreadable)?.file_type())?;
        let copy = IncomingCopy {
            path: path.to_owned(),
            placed: false,
        };
        let mut target = PrivateFile::create(&copy.path)?;
        std::io::copy(&mut source, &mut target)?;
        target.commit()?;
        Ok(copy)
    }

    /// Renames the copy over `database`.
    fn replace(mut self, database: &Path) -> std::io::Result<()> {
        fs::rename(&self.path, database)?;
        self.placed = true;
        Ok(())
    }
}

impl Drop for IncomingCopy {
    fn drop(&mut self) {
        if self.placed {
            return;
        }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = self.path.as_os_str().to_owned();
            name.push(suffix);
            let _ = fs::remove_file(Path::new(&name));
        }
    }
}

fn refuse_unless_regular(file: &Path, kind: fs::FileType) -> ServiceResult<()> {
    use std::os::unix::fs::FileTypeExt;
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "of an unknown kind"
    };
    Err(invalid(format!(
        "{} is {what}, not a regular file: choose a file written by `pillbox backup`; nothing was restored",
        file.display()
    )))
}

/// Hard-links `existing` as `name` in its directory, or as `name-2`, `name-3`… when an
/// earlier restore (in the same second) took that name: a kept copy is never overwritten.
fn link_under_new_name(existing: &Path, name: &str) -> std::io::Result<PathBuf> {
    let dir = existing.parent().unwrap_or(Path::new("."));
    let mut attempt = 1;
    loop {
        let candidate = if attempt == 1 {
            dir.join(name)
        } else {
            dir.join(format!("{name}-{attempt}"))
        };
        match fs::hard_link(existing, &candidate) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => attempt += 1,
            linked => return linked.map(|()| candidate),
        }
    }
}

type KeyFiles = Vec<(&'static str, Vec<u8>)>;

/// Checks the copy at `incoming` (an intact SQLite file whose tables and columns are what
/// the migrations make at its schema version), migrates it, and takes the key files out.
fn check_and_prepare(incoming: &Path, original: &Path) -> ServiceResult<(Vec<&'static str>, KeyFiles)> {
    let not_sqlite = |_| {
        invalid(format!(
            "{} is not a SQLite database: choose a file written by `pillbox backup`; nothing was restored",
            original.display()
        ))
    };
    let refused =
        |e: migrations::MigrateError| invalid(format!("{}: {e}; nothing was restored", original.display()));
    let mut conn = Connection::open_with_flags(
        incoming,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .map_err(not_sqlite)?;
    if check != "ok" {
        return Err(invalid(format!(
            "{} is damaged (integrity check: {check}); nothing was restored",
            original.display()
        )));
    }
    let version = migrations::check_shape(&conn, &[snapshot_files::TABLE]).map_err(refused)?;
    if version == 0 {
        return Err(invalid(format!(
            "{} holds no Pillbox data (an empty or unfinished file?): choose a file written by `pillbox backup`; nothing was restored",
            original.display()
        )));
    }
    // The operator still has the original: no pre-migration copy of it in backups/.
    let applied = migrations::migrate_copy(&mut conn).map_err(refused)?;
    let files = snapshot_files::take(&conn, &INSTANCE_FILES)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    drop(conn);
    Ok((applied, files))
}

/// Removes the kept exports of accounts that do not exist in `database` (deleted, or
/// absent from a restored snapshot), so an id given to someone new never shows them
/// another person's files.
pub fn forget_departed_users(database: &Path, backups: &Path) -> ServiceResult<()> {
    let users_dir = backups.join("users");
    let Ok(entries) = fs::read_dir(&users_dir) else {
        return Ok(());
    };
    let conn = db::open_connection(database, false)?;
    for entry in entries.flatten() {
        let id = entry.file_name().to_str().and_then(|n| n.parse::<i64>().ok());
        let keep = match id {
            Some(id) => users::exists(&conn, id)?,
            None => true,
        };
        if !keep {
            fs::remove_dir_all(entry.path())?;
        }
    }
    Ok(())
}

/// The daily snapshot's file name for a day.
pub fn daily_name(day: NaiveDate) -> String {
    format!("{DAILY_PREFIX}{day}.sqlite3")
}

/// Daily snapshots in `dir`, newest first.
pub fn daily_snapshots(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(DAILY_PREFIX) && n.ends_with(".sqlite3"))
        })
        .collect();
    found.sort();
    found.reverse();
    found
}

/// Takes today's snapshot into `dir` unless there is one, then keeps the newest `keep`.
/// Returns the new snapshot's path, or `None` when today's already existed.
pub fn daily(
    database: &Path,
    data_dir: &Path,
    dir: &Path,
    keep: usize,
    now: DateTime<Utc>,
) -> ServiceResult<Option<PathBuf>> {
    let today = now.date_naive();
    let path = dir.join(daily_name(today));
    let taken = if path.exists() {
        None
    } else {
        snapshot(database, data_dir, &path)?;
        Some(path)
    };
    for old in daily_snapshots(dir).into_iter().skip(keep.max(1)) {
        fs::remove_file(&old)?;
    }
    Ok(taken)
}

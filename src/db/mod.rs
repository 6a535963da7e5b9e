//! SQLite: connection setup, the connection pool used from async code, migrations and backups.
//!
//! rusqlite is blocking, so async code never touches a connection directly: `Db::write` and
//! `Db::read` run a closure on tokio's blocking pool. There is one writer connection (SQLite
//! allows one writer at a time; queuing here is cheaper than `SQLITE_BUSY`) and a few
//! read-only connections that WAL lets run beside it.

pub mod migrations;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use tokio::sync::{Mutex, Semaphore};

/// How many read-only connections may be open at once.
const READERS: usize = 4;
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The database file inside the data directory.
pub const DATABASE_FILE: &str = "pillbox.sqlite3";

#[derive(Debug)]
pub enum DbError {
    Sqlite(rusqlite::Error),
    /// The blocking task panicked or the runtime is shutting down.
    Task(String),
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbError::Sqlite(e) => write!(f, "database error: {e}"),
            DbError::Task(e) => write!(f, "database task failed: {e}"),
        }
    }
}

impl std::error::Error for DbError {}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError::Sqlite(e)
    }
}

/// Opens a connection with Pillbox's pragmas. `create` allows making a new database file.
pub fn open_connection(path: &Path, create: bool) -> rusqlite::Result<Connection> {
    let mut flags =
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // A logged dose must survive a power cut: fsync at every commit, WAL or not.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

/// Makes the database and its -wal and -shm files owner-only, if they are not already.
/// (SQLite creates the -wal and -shm files with the database file's mode.)
pub fn make_private(database: &Path) -> std::io::Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = database.as_os_str().to_owned();
        name.push(suffix);
        crate::files::make_private(Path::new(&name))?;
    }
    Ok(())
}

fn open_reader(path: &Path) -> rusqlite::Result<Connection> {
    let conn = open_connection(path, false)?;
    conn.pragma_update(None, "query_only", "ON")?;
    Ok(conn)
}

/// The shared handle to the database used by the server.
#[derive(Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    writer: Arc<Mutex<Connection>>,
    idle_readers: StdMutex<Vec<Connection>>,
    reader_slots: Arc<Semaphore>,
}

impl Db {
    /// Wraps an opened (and migrated) writer connection.
    pub fn new(path: PathBuf, writer: Connection) -> Db {
        Db {
            inner: Arc::new(Inner {
                path,
                writer: Arc::new(Mutex::new(writer)),
                idle_readers: StdMutex::new(Vec::new()),
                reader_slots: Arc::new(Semaphore::new(READERS)),
            }),
        }
    }

    /// Runs `f` on the writer connection, off the async runtime. Writers queue here.
    pub async fn write<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, E> + Send + 'static,
    {
        let mut conn = self.inner.writer.clone().lock_owned().await;
        tokio::task::spawn_blocking(move || f(&mut conn))
            .await
            .map_err(|e| E::from(DbError::Task(e.to_string())))?
    }

    /// Runs `f` on a read-only connection, off the async runtime.
    pub async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
        F: FnOnce(&Connection) -> Result<T, E> + Send + 'static,
    {
        let permit = self
            .inner
            .reader_slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| E::from(DbError::Task(e.to_string())))?;
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let idle = inner.idle_readers.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let conn = match idle {
                Some(conn) => conn,
                None => open_reader(&inner.path).map_err(|e| E::from(DbError::from(e)))?,
            };
            let result = f(&conn);
            inner
                .idle_readers
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(conn);
            result
        })
        .await
        .map_err(|e| E::from(DbError::Task(e.to_string())))?
    }
}

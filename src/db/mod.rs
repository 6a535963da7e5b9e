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

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};
use tokio::sync::{Mutex, Semaphore};

/// How many read-only connections may be open at once.
const READERS: usize = 4;
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Prepared statements each connection keeps (rusqlite's default is 16, fewer than the
/// distinct hot queries, so a mix of screens would evict and re-prepare them).
const STATEMENT_CACHE: usize = 128;

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
    // Without the query planner stability guarantee, SQLite (built with STAT4) marks a
    // statement to be re-prepared whenever a new value is bound to a parameter the planner
    // looked at, `LIMIT ?` among them: every paged query would be compiled again on every
    // call, cached or not. Our queries are index-driven; one plan per statement is right.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    Ok(conn)
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

    /// Runs `f` on a read-only connection on this thread when one is free, else like `read`.
    /// Only for short reads bounded by what one account holds (the session's user, the
    /// medication list): they take microseconds, less than the two thread switches of a hop
    /// to the blocking pool and back, which were the largest cost of a signed-in request.
    /// WAL readers never wait for the writer, so this does not stall the runtime.
    pub async fn read_inline<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
        F: FnOnce(&Connection) -> Result<T, E> + Send + 'static,
    {
        let Ok(permit) = self.inner.reader_slots.clone().try_acquire_owned() else {
            return self.read(f).await;
        };
        let idle = self.inner.idle_readers.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let conn = match idle {
            Some(conn) => conn,
            // Opening a connection is file work: do it off the runtime, once.
            None => {
                drop(permit);
                return self.read(f).await;
            }
        };
        let result = f(&conn);
        self.inner
            .idle_readers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(conn);
        drop(permit);
        result
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

#[cfg(test)]
mod tests {
    use rusqlite::StatementStatus;

    use super::open_connection;

    /// A cached statement with `LIMIT ?` runs with new values without being compiled again.
    #[test]
    fn a_new_limit_does_not_recompile_a_cached_statement() {
        let dir = tempfile::tempdir().expect("temp dir");
        let conn = open_connection(&dir.path().join("t.sqlite3"), true).expect("open");
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER); CREATE INDEX t_k ON t (k, id);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO t (k) SELECT i % 7 FROM n; ANALYZE;",
        )
        .expect("schema");
        let sql = "SELECT id FROM t WHERE k = ?1 ORDER BY id DESC LIMIT ?2 OFFSET ?3";
        for limit in 1..20_i64 {
            let mut statement = conn.prepare_cached(sql).expect("prepare");
            let rows: Vec<i64> = statement
                .query_map([limit % 7, limit, limit], |row| row.get(0))
                .expect("query")
                .collect::<Result<_, _>>()
                .expect("rows");
            assert_eq!(rows.len(), limit as usize);
            assert_eq!(statement.get_status(StatementStatus::RePrepare), 0);
        }
    }
}

//! SQLite: connection setup, the connection pool used from async code, migrations and backups.
//!
//! rusqlite is blocking, so async code never touches a connection directly: `Db::write` and
//! `Db::read` run a closure on tokio's blocking pool. There is one writer connection (SQLite
//! allows one writer at a time; queuing here is cheaper than `SQLITE_BUSY`) and a few
//! read-only connections that WAL lets run beside it.
//!
//! Every commit waits for an fsync (`synchronous=FULL`), which bounds one-commit-per-write
//! to the disk's fsync rate. `Db::write_grouped` is for the hot small writes (logging a
//! dose): the writes that queue up while one commit is on disk run together in the next
//! transaction, each in its own savepoint, and are all answered after its one commit.

pub mod migrations;
mod stamp;

pub use stamp::Stamp;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};
use tokio::sync::{Mutex, Semaphore, oneshot, watch};

/// How many read-only connections may be open at once.
const READERS: usize = 4;
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Prepared statements each connection keeps (rusqlite's default is 16, fewer than the
/// distinct hot queries, so a mix of screens would evict and re-prepare them).
const STATEMENT_CACHE: usize = 128;

/// The most writes one group commit takes; the rest wait for the next one.
const MAX_GROUP: usize = 256;

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

/// Whether SQLite could not write because the disk (or its quota) is full: the change was
/// rolled back, and the person is told so (507) rather than "something went wrong".
pub fn is_storage_full(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull)
}

impl DbError {
    /// The same failure again, for each of the writes a failed group commit answers.
    fn again(e: &rusqlite::Error) -> DbError {
        match e {
            rusqlite::Error::SqliteFailure(code, message) => {
                DbError::Sqlite(rusqlite::Error::SqliteFailure(*code, message.clone()))
            }
            other => DbError::Task(other.to_string()),
        }
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

/// Gives back the page cache a connection holds beyond what it is using (after a large
/// pass such as the planner's, so that the memory is not kept until the next one).
pub fn shrink_memory(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("PRAGMA shrink_memory")
}

/// Writes a consistent copy of the whole database to `target`, an empty or absent file
/// (`VACUUM INTO`: safe while the server writes, unlike copying a WAL database's files).
pub fn copy_into(conn: &Connection, target: &str) -> rusqlite::Result<()> {
    conn.execute("VACUUM INTO ?1", [target])?;
    Ok(())
}

/// Folds the write-ahead log into the database file and empties it; false when another
/// connection kept it from finishing.
pub fn checkpoint(conn: &Connection) -> rusqlite::Result<bool> {
    let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))?;
    Ok(busy == 0)
}

fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("PRAGMA data_version")?
        .query_row([], |row| row.get(0))
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
    /// Writes waiting for the next group commit, oldest first.
    grouped: StdMutex<Vec<Box<dyn Grouped>>>,
    idle_readers: StdMutex<Vec<Connection>>,
    reader_slots: Arc<Semaphore>,
    /// A reader kept aside to notice commits (see `Db::version`), with the last
    /// `data_version` it saw.
    watcher: StdMutex<Option<(Connection, i64)>>,
    version: AtomicU64,
    /// Counts the writes this process has finished (see `Db::writes`).
    written: watch::Sender<u64>,
}

impl Inner {
    fn take_idle_reader(&self) -> Option<Connection> {
        self.idle_readers.lock().unwrap_or_else(|p| p.into_inner()).pop()
    }

    fn give_back_reader(&self, conn: Connection) {
        self.idle_readers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(conn);
    }
}

impl Db {
    /// Wraps an opened (and migrated) writer connection.
    pub fn new(path: PathBuf, writer: Connection) -> Db {
        Db {
            inner: Arc::new(Inner {
                path,
                writer: Arc::new(Mutex::new(writer)),
                grouped: StdMutex::new(Vec::new()),
                idle_readers: StdMutex::new(Vec::new()),
                reader_slots: Arc::new(Semaphore::new(READERS)),
                watcher: StdMutex::new(None),
                version: AtomicU64::new(0),
                written: watch::Sender::new(0),
            }),
        }
    }

    /// A number that is larger than any it answered before whenever something was
    /// committed to the database since, by this process or another (a CLI command beside
    /// the server, a restore). What is computed from a read that began after asking may be
    /// reused for as long as the number stays the same. `None` when it cannot be told (no
    /// reader opened yet, or the database fails): then nothing may be reused.
    ///
    /// One connection watches SQLite's `data_version`, which changes for a connection
    /// whenever another connection commits; it costs a look at the WAL index in shared
    /// memory, no file read.
    pub fn version(&self) -> Option<u64> {
        let mut watcher = self.inner.watcher.lock().unwrap_or_else(|p| p.into_inner());
        if watcher.is_none() {
            // Opening is file work, not for the runtime: take a reader `read` opened.
            let conn = self.inner.take_idle_reader()?;
            let seen = data_version(&conn).ok()?;
            *watcher = Some((conn, seen));
            // What was cached before the watcher saw anything is not trusted.
            return Some(self.inner.version.fetch_add(1, Ordering::SeqCst) + 1);
        }
        let (conn, seen) = watcher.as_mut()?;
        let Ok(now) = data_version(conn) else {
            // Its next answer starts afresh.
            *watcher = None;
            return None;
        };
        if now != *seen {
            *seen = now;
            return Some(self.inner.version.fetch_add(1, Ordering::SeqCst) + 1);
        }
        Some(self.inner.version.load(Ordering::SeqCst))
    }

    /// A signal that moves on after every write of this process has finished (committed
    /// or not): for a watcher that recomputes what it shows from the database (Home
    /// Assistant's states) instead of polling it. Costs one atomic add per write when
    /// nobody watches.
    pub fn writes(&self) -> watch::Receiver<u64> {
        self.inner.written.subscribe()
    }

    fn wrote(&self) {
        self.inner.written.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Runs `f` on the writer connection, off the async runtime. Writers queue here.
    pub async fn write<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, E> + Send + 'static,
    {
        let mut conn = self.inner.writer.clone().lock_owned().await;
        let done = tokio::task::spawn_blocking(move || f(&mut conn))
            .await
            .map_err(|e| E::from(DbError::Task(e.to_string())));
        self.wrote();
        done?
    }

    /// Runs `f` in one transaction on the writer connection: committed when `f` answers
    /// `Ok`, rolled back when it answers `Err` (nothing half-written). For an edge that asks
    /// several services to do one unit of work (check the access, then change).
    pub async fn transaction<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T, E> + Send + 'static,
    {
        self.write(move |conn| {
            let tx = conn.transaction().map_err(|e| E::from(DbError::from(e)))?;
            let answer = f(&tx)?;
            tx.commit().map_err(|e| E::from(DbError::from(e)))?;
            Ok(answer)
        })
        .await
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
        // Opening a connection is file work: that is done off the runtime, by `read`.
        let Some(conn) = self.inner.take_idle_reader() else {
            drop(permit);
            return self.read(f).await;
        };
        let result = f(&conn);
        self.inner.give_back_reader(conn);
        drop(permit);
        result
    }

    /// Runs `f` on the writer connection inside a transaction shared with the other grouped
    /// writes queued meanwhile, and answers once that transaction is committed (durable, like
    /// `write`). `f` runs in its own savepoint: when it returns an error (or panics) only its
    /// own changes are rolled back and the others commit. `f` must not begin or end a
    /// transaction itself. A failed commit fails every write of the group.
    pub async fn write_grouped<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
        F: FnOnce(&Connection) -> Result<T, E> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        let job = Job {
            write: Some(f),
            result: None,
            answer,
        };
        self.inner
            .grouped
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Box::new(job));
        // Each write brings a runner, detached so that a caller who goes away (a closed
        // connection) never leaves its write queued with nobody to run it. A runner whose
        // write an earlier group took finds the queue empty and stops.
        let inner = self.inner.clone();
        tokio::spawn(async move {
            let conn = inner.writer.clone().lock_owned().await;
            let jobs: Vec<Box<dyn Grouped>> = {
                let mut queue = inner.grouped.lock().unwrap_or_else(|p| p.into_inner());
                let n = queue.len().min(MAX_GROUP);
                queue.drain(..n).collect()
            };
            if !jobs.is_empty() {
                // A panic there drops the answers, which their callers see as an error.
                let _ = tokio::task::spawn_blocking(move || run_group(&conn, jobs)).await;
                inner.written.send_modify(|n| *n = n.wrapping_add(1));
            }
        });
        answered
            .await
            .map_err(|_| E::from(DbError::Task("the write was abandoned".into())))?
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
            let conn = match inner.take_idle_reader() {
                Some(conn) => conn,
                None => open_reader(&inner.path).map_err(|e| E::from(DbError::from(e)))?,
            };
            let result = f(&conn);
            inner.give_back_reader(conn);
            result
        })
        .await
        .map_err(|e| E::from(DbError::Task(e.to_string())))?
    }
}

/// A write waiting for a group commit, whatever its closure and result types.
trait Grouped: Send {
    /// Runs the write; true when its changes are to stay.
    fn run(&mut self, conn: &Connection) -> bool;
    /// Whether the caller no longer waits for the answer.
    fn abandoned(&self) -> bool;
    /// Answers the caller once the group's transaction has ended: its own error, the
    /// commit's, or its result.
    fn finish(self: Box<Self>, committed: Result<(), DbError>);
}

struct Job<T, E, F> {
    write: Option<F>,
    result: Option<Result<T, E>>,
    answer: oneshot::Sender<Result<T, E>>,
}

impl<T, E, F> Grouped for Job<T, E, F>
where
    T: Send,
    E: From<DbError> + Send,
    F: FnOnce(&Connection) -> Result<T, E> + Send,
{
    fn run(&mut self, conn: &Connection) -> bool {
        let Some(write) = self.write.take() else {
            return false;
        };
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| write(conn)))
            .unwrap_or_else(|_| Err(E::from(DbError::Task("the write panicked".into()))));
        let keep = result.is_ok();
        self.result = Some(result);
        keep
    }

    fn abandoned(&self) -> bool {
        self.answer.is_closed()
    }

    fn finish(self: Box<Self>, committed: Result<(), DbError>) {
        let answer = match (self.result, committed) {
            (Some(Err(own)), _) => Err(own),
            (_, Err(e)) => Err(E::from(e)),
            (Some(Ok(value)), Ok(())) => Ok(value),
            (None, Ok(())) => Err(E::from(DbError::Task("the write did not run".into()))),
        };
        // A caller that went away no longer wants the answer.
        let _ = self.answer.send(answer);
    }
}

/// One group commit: every job in one transaction, each in a savepoint, then one COMMIT.
fn run_group(conn: &Connection, jobs: Vec<Box<dyn Grouped>>) {
    let mut pending: Vec<Box<dyn Grouped>> = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter();
    while let Some(mut job) = jobs.next() {
        // A caller that went away (a closed connection, a request cut off at shutdown) was
        // told the write failed and may send it again: writing it now would log that dose
        // twice.
        if job.abandoned() {
            job.finish(Err(DbError::Task("the caller went away".into())));
            continue;
        }
        if conn.is_autocommit()
            && let Err(e) = conn.execute_batch("BEGIN IMMEDIATE")
        {
            // Another process holds the database (each try waits the busy timeout): the
            // rest of the group would only wait as long again, one after another.
            for rest in jobs.by_ref() {
                rest.finish(Err(DbError::again(&e)));
            }
            job.finish(Err(e.into()));
            break;
        }
        let kept = conn
            .execute_batch("SAVEPOINT grouped_write")
            .map(|()| job.run(conn));
        let ended = match kept {
            Ok(true) => conn.execute_batch("RELEASE grouped_write"),
            Ok(false) => conn.execute_batch("ROLLBACK TO grouped_write; RELEASE grouped_write"),
            Err(e) => Err(e),
        };
        if conn.is_autocommit() {
            // SQLite rolled the whole transaction back (a full disk, an I/O error): nothing
            // written in it stays, so every write in it fails.
            for earlier in pending.drain(..) {
                earlier.finish(Err(DbError::Task(
                    "the transaction was rolled back by a failing write".into(),
                )));
            }
            job.finish(Err(ended.err().map_or_else(
                || DbError::Task("the transaction was rolled back".into()),
                DbError::from,
            )));
            continue;
        }
        if let Err(e) = ended {
            // The savepoint could not be ended, so the transaction cannot be trusted: undo it.
            let _ = conn.execute_batch("ROLLBACK");
            for earlier in pending.drain(..) {
                earlier.finish(Err(DbError::again(&e)));
            }
            job.finish(Err(e.into()));
            continue;
        }
        pending.push(job);
    }
    if conn.is_autocommit() {
        return;
    }
    let committed = conn.execute_batch("COMMIT");
    if committed.is_err() && !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    for job in pending {
        job.finish(committed.as_ref().map_err(DbError::again).copied());
    }
    // A transaction left open would make every later `Db::write` fail ("cannot start a
    // transaction within a transaction") until a restart.
    if !conn.is_autocommit()
        && let Err(e) = conn.execute_batch("ROLLBACK")
    {
        tracing::error!("the writer connection is stuck in a transaction: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::StatementStatus;

    /// Holds the writer until the sender is used, so that grouped writes queue up meanwhile.
    async fn hold_writer(
        db: &Db,
    ) -> (
        std::sync::mpsc::Sender<()>,
        tokio::task::JoinHandle<Result<(), DbError>>,
    ) {
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (holding, held) = oneshot::channel();
        let holder = {
            let db = db.clone();
            tokio::spawn(async move {
                db.write(move |_| {
                    let _ = holding.send(());
                    let _ = released.recv();
                    Ok::<_, DbError>(())
                })
                .await
            })
        };
        held.await.unwrap();
        (release, holder)
    }

    /// The rows of the test table.
    async fn stored(db: &Db) -> Vec<i64> {
        db.read(|conn| {
            conn.prepare("SELECT n FROM doses ORDER BY n")?
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()
                .map_err(DbError::from)
        })
        .await
        .unwrap()
    }

    fn database() -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test.sqlite3");
        let conn = open_connection(&path, true).unwrap();
        conn.execute_batch("CREATE TABLE doses (n INTEGER NOT NULL)")
            .unwrap();
        (dir, Db::new(path, conn))
    }

    /// A request that went away while its write waited was told it failed; writing it
    /// anyway would record a dose the person then logs again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_grouped_write_whose_caller_went_away_is_not_written() {
        let (_dir, db) = database();
        let (release, holder) = hold_writer(&db).await;
        let gone = {
            let db = db.clone();
            tokio::spawn(async move {
                db.write_grouped(|conn| {
                    conn.execute("INSERT INTO doses (n) VALUES (1)", [])?;
                    Ok::<_, DbError>(())
                })
                .await
            })
        };
        while db.inner.grouped.lock().unwrap().is_empty() {
            tokio::task::yield_now().await;
        }
        gone.abort();
        let _ = gone.await;
        let kept = {
            let db = db.clone();
            tokio::spawn(async move {
                db.write_grouped(|conn| {
                    conn.execute("INSERT INTO doses (n) VALUES (2)", [])?;
                    Ok::<_, DbError>(())
                })
                .await
            })
        };
        while db.inner.grouped.lock().unwrap().len() < 2 {
            tokio::task::yield_now().await;
        }
        release.send(()).unwrap();
        holder.await.unwrap().unwrap();
        kept.await.unwrap().unwrap();
        let stored = stored(&db).await;
        assert_eq!(stored, [2]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn grouped_writes_share_a_commit_and_a_failing_one_fails_alone() {
        let (_dir, db) = database();
        // Hold the writer so that the writes below queue up and run as one group.
        let (release, holder) = hold_writer(&db).await;
        let wal = db.inner.path.with_extension("sqlite3-wal");
        let wal_before = std::fs::metadata(&wal).unwrap().len();
        let writes: Vec<_> = (0..10i64)
            .map(|n| {
                let db = db.clone();
                tokio::spawn(async move {
                    db.write_grouped(move |conn| {
                        conn.execute("INSERT INTO doses (n) VALUES (?1)", [n])?;
                        match n {
                            3 => Err(DbError::Task("refused".into())),
                            6 => panic!("a broken write"),
                            _ => Ok(n),
                        }
                    })
                    .await
                })
            })
            .collect();
        while db.inner.grouped.lock().unwrap().len() < 10 {
            tokio::task::yield_now().await;
        }
        release.send(()).unwrap();
        holder.await.unwrap().unwrap();
        let mut answers = Vec::new();
        for write in writes {
            answers.push(write.await.unwrap().map_err(|e| e.to_string()));
        }
        assert_eq!(answers[3], Err("database task failed: refused".into()));
        assert_eq!(answers[6], Err("database task failed: the write panicked".into()));
        assert_eq!(
            answers
                .iter()
                .filter_map(|a| a.as_ref().ok().copied())
                .collect::<Vec<_>>(),
            [0, 1, 2, 4, 5, 7, 8, 9]
        );
        let stored = stored(&db).await;
        assert_eq!(stored, [0, 1, 2, 4, 5, 7, 8, 9], "the others' rows stay");
        // One commit wrote the table's page once; a commit per write would have appended it
        // to the write-ahead log eight times.
        let frames = (std::fs::metadata(&wal).unwrap().len() - wal_before) / (4096 + 24);
        assert_eq!(frames, 1, "one commit for the whole group");
        // The writer is usable again for ordinary transactions.
        db.write(|conn| {
            let tx = conn.transaction()?;
            tx.execute("INSERT INTO doses (n) VALUES (10)", [])?;
            tx.commit()?;
            Ok::<_, DbError>(())
        })
        .await
        .unwrap();
    }

    /// The version moves on at every commit, ours or another process's, and only then.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_version_moves_on_at_every_commit_from_anywhere() {
        let (dir, db) = database();
        assert_eq!(db.version(), None, "no reader was opened yet");
        assert!(stored(&db).await.is_empty());
        let first = db.version().expect("a reader is idle now");
        assert_eq!(db.version(), Some(first), "nothing was committed");

        db.write(|conn| {
            conn.execute("INSERT INTO doses (n) VALUES (1)", [])
                .map_err(DbError::from)
        })
        .await
        .unwrap();
        let after_ours = db.version().unwrap();
        assert!(after_ours > first);
        assert_eq!(db.version(), Some(after_ours));

        // Another process (a CLI command beside the server) writes through its own connection.
        let other = open_connection(&dir.path().join("test.sqlite3"), false).unwrap();
        other.execute("INSERT INTO doses (n) VALUES (2)", []).unwrap();
        let after_theirs = db.version().unwrap();
        assert!(after_theirs > after_ours);

        // A read changes nothing.
        assert_eq!(stored(&db).await, vec![1, 2]);
        assert_eq!(db.version(), Some(after_theirs));
    }

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

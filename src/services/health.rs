//! The checks behind `/health` that touch storage: the database takes a write, and the data
//! directory's file system has room.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use crate::db::{Db, DbError, Stamp};
use crate::files;
use crate::store::health;

/// A write probe's answer is reused for this long: `/health` is unauthenticated, and each
/// probe is a commit with an fsync.
const PROBE_REUSE: Duration = Duration::from_secs(2);
/// A write that has not finished by then counts as failed (the writer is stuck or the
/// database is locked by another process).
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// A check's outcome: `None` when fine, else what is wrong, for the operator.
pub type Outcome = Option<String>;

/// Proves that the database takes writes by committing one row, at most every 2 s.
#[derive(Default)]
pub struct WriteProbe {
    last: Mutex<Option<(Instant, Outcome)>>,
}

impl WriteProbe {
    /// `now` is what the probe row records.
    pub async fn check(&self, db: &Db, now: Stamp) -> Outcome {
        // Callers that arrive while a probe runs wait for it and share its answer.
        let mut last = self.last.lock().await;
        if let Some((at, outcome)) = last.as_ref()
            && at.elapsed() < PROBE_REUSE
        {
            return outcome.clone();
        }
        let write = db.write(move |conn| Ok::<_, DbError>(health::write_probe(conn, now)?));
        let outcome = match tokio::time::timeout(PROBE_TIMEOUT, write).await {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("cannot write: {e}")),
            Err(_) => Some(format!(
                "a write did not finish within {} s",
                PROBE_TIMEOUT.as_secs()
            )),
        };
        if let Some(problem) = &outcome {
            tracing::error!("health: the database {problem}");
        }
        *last = Some((Instant::now(), outcome.clone()));
        outcome
    }
}

/// Whether the file system holding `data_dir` has at least `min_free` bytes available.
pub async fn check_disk(data_dir: PathBuf, min_free: u64) -> Outcome {
    // statvfs can block on a network file system; keep it off the async threads.
    let free = tokio::task::spawn_blocking(move || files::free_bytes(&data_dir)).await;
    let outcome = match free {
        Ok(Ok(free)) if free >= min_free => None,
        Ok(Ok(free)) => Some(format!(
            "{} free, below the {} that health.min_free_bytes asks for",
            megabytes(free),
            megabytes(min_free)
        )),
        Ok(Err(e)) => Some(format!("cannot read the free space: {e}")),
        Err(e) => Some(format!("cannot read the free space: {e}")),
    };
    if let Some(problem) = &outcome {
        tracing::error!("health: the data directory's disk: {problem}");
    }
    outcome
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn disk_check_compares_the_free_space_with_the_threshold() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(check_disk(dir.path().to_owned(), 0).await, None);
        let problem = check_disk(dir.path().to_owned(), u64::MAX).await.unwrap();
        assert!(problem.contains("health.min_free_bytes"), "{problem}");
        let problem = check_disk(dir.path().join("missing"), 0).await.unwrap();
        assert!(problem.contains("cannot read the free space"), "{problem}");
    }
}

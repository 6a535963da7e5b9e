//! The daily data jobs of `pillbox serve`: the instance snapshot, each person's
//! auto-backup, and history retention. They run within a minute of starting and then every
//! hour; each does its work at most once a day, so restarts never multiply it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

use super::{ServiceError, backup, retention, user_backups, user_settings};
use crate::clock::Clock;
use crate::config::BackupSettings;
use crate::db::Db;
use crate::store::{settings, users};

const FIRST_RUN: Duration = Duration::from_secs(5);
const INTERVAL: Duration = Duration::from_secs(3600);

/// The last instance snapshot's outcome, for /health.
#[derive(Debug, Default, Clone, Serialize)]
pub struct BackupHealth {
    pub last_success: Option<String>,
    pub last_file: Option<String>,
    /// Set while the last attempt failed.
    pub error: Option<String>,
}

#[derive(Clone, Default)]
pub struct BackupStatus(Arc<Mutex<BackupHealth>>);

impl BackupStatus {
    pub fn get(&self) -> BackupHealth {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether the last instance backup succeeded, and its details (for /health).
    pub fn health(&self) -> (bool, BackupHealth) {
        let health = self.get();
        (health.error.is_none(), health)
    }

    fn set(&self, update: impl FnOnce(&mut BackupHealth)) {
        update(&mut self.0.lock().unwrap_or_else(|p| p.into_inner()));
    }
}

pub struct DataJobs {
    pub db: Db,
    pub database: PathBuf,
    pub data_dir: PathBuf,
    pub backups: PathBuf,
    pub settings: BackupSettings,
    pub status: BackupStatus,
    /// The server's clock (a test clock moves it too).
    pub clock: Clock,
}

impl DataJobs {
    /// Runs the jobs until the task is dropped with the runtime.
    pub fn start(self) -> tokio::task::JoinHandle<()> {
        let jobs = Arc::new(self);
        tokio::spawn(async move {
            tokio::time::sleep(FIRST_RUN).await;
            loop {
                jobs.run_once().await;
                tokio::time::sleep(INTERVAL).await;
            }
        })
    }

    async fn run_once(&self) {
        if self.settings.daily {
            self.snapshot().await;
        }
        let (database, backups) = (self.database.clone(), self.backups.clone());
        let cleaned =
            tokio::task::spawn_blocking(move || backup::forget_departed_users(&database, &backups)).await;
        if let Ok(Err(e)) = cleaned {
            tracing::error!("could not remove deleted accounts' backups: {e}");
        }
        if let Err(e) = self.user_exports().await {
            tracing::error!("daily auto-backups failed: {e}");
        }
        if let Err(e) = self.retention().await {
            tracing::error!("history retention failed: {e}");
        }
    }

    async fn snapshot(&self) {
        let (database, data_dir, backups) =
            (self.database.clone(), self.data_dir.clone(), self.backups.clone());
        let keep = self.settings.keep as usize;
        let now = self.clock.now();
        let result =
            tokio::task::spawn_blocking(move || backup::daily(&database, &data_dir, &backups, keep, now))
                .await
                .unwrap_or_else(|e| Err(ServiceError::Io(std::io::Error::other(e.to_string()))));
        match result {
            Ok(taken) => {
                if let Some(path) = &taken {
                    tracing::info!("daily backup written: {}", path.display());
                }
                self.status.set(|h| {
                    h.error = None;
                    if let Some(path) = taken {
                        h.last_success = Some(self.clock.now_stamp());
                        h.last_file = path.file_name().map(|n| n.to_string_lossy().into_owned());
                    }
                });
            }
            Err(e) => {
                tracing::error!("daily backup failed: {e}");
                self.status.set(|h| h.error = Some(e.to_string()));
            }
        }
    }

    /// Today's export for every person who has data and keeps auto-backup on.
    async fn user_exports(&self) -> Result<(), ServiceError> {
        let backups = self.backups.clone();
        // The jobs are an edge of their own (like the dispatcher): they read the clock.
        let now = self.clock.now();
        self.db
            .read(move |conn| {
                for user_id in users::with_data(conn)? {
                    if !user_settings::auto_backup(&settings::get(conn, user_id)?) {
                        continue;
                    }
                    let dir = user_backups::dir_for(&backups, user_id);
                    if let Err(e) = user_backups::write_daily(conn, user_id, &dir, now) {
                        tracing::error!("auto-backup of user {user_id} failed: {e}");
                    }
                }
                Ok(())
            })
            .await
    }

    async fn retention(&self) -> Result<(), ServiceError> {
        let now = self.clock.now();
        self.db
            .write(move |conn| {
                for user_id in retention::users_with_retention(conn)? {
                    let tx = conn.transaction()?;
                    let deleted = retention::prune(&tx, user_id, now)?;
                    tx.commit()?;
                    if deleted > 0 {
                        tracing::info!("retention: deleted {deleted} old history entries of user {user_id}");
                    }
                }
                Ok(())
            })
            .await
    }
}

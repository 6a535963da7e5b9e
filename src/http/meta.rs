//! Instance endpoints: health, schema status and version.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::error::{ApiError, ApiResult, Data, data};
use super::routes;
use crate::db::{Stamp, migrations};
use crate::reminders::heartbeat;
use crate::services::health;
use crate::services::jobs::BackupHealth;
use crate::version::VERSION;

/// The answer of `/health`.
#[derive(Serialize)]
pub struct Health {
    /// `ok`, or `degraded` while the last instance backup failed or for an hour after the
    /// system clock jumped.
    status: &'static str,
    database: &'static str,
    backup: BackupHealth,
    version: &'static str,
    checks: Checks,
}

/// Each check: `"ok"`, or what is wrong.
#[derive(Serialize)]
struct Checks {
    /// The database takes a write.
    database: String,
    /// The data directory's file system has at least `health.min_free_bytes` free.
    disk: String,
    /// The reminder dispatcher finished a pass recently.
    dispatcher: String,
    /// The system clock has not jumped more than five minutes in the last hour. A jump
    /// degrades the status but fails nothing: doses are still logged and reminders sent.
    clock: String,
}

impl Checks {
    fn failed(&self) -> Vec<&'static str> {
        [
            ("database", &self.database),
            ("disk", &self.disk),
            ("dispatcher", &self.dispatcher),
        ]
        .into_iter()
        .filter(|(_, outcome)| *outcome != "ok")
        .map(|(name, _)| name)
        .collect()
    }
}

fn shown(outcome: Option<String>) -> String {
    outcome.unwrap_or_else(|| "ok".to_owned())
}

/// Healthy when the database takes a write, the disk has room and the dispatcher finishes
/// its passes; otherwise 503 naming the failed checks. A failed instance backup or a recent
/// jump of the system clock shows as "degraded" but stays 200: a proxy's health check must not take the app away from
/// someone logging a dose because last night's snapshot failed.
pub async fn health(State(state): State<AppState>) -> Response {
    let min_free = state.settings.health.min_free_bytes;
    let (database, disk) = tokio::join!(
        state.write_probe.check(&state.db, Stamp::from(state.clock.now())),
        health::check_disk(state.data_dir.to_path_buf(), min_free),
    );
    let checks = Checks {
        database: shown(database),
        disk: shown(disk),
        dispatcher: shown(dispatcher_check(&state)),
        clock: shown(state.engine.clock_watch.recent_jump()),
    };
    let failed = checks.failed();
    if !failed.is_empty() {
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("Unhealthy: {}", failed.join(", ")),
        )
        .with_field("checks", serde_json::to_value(&checks).unwrap_or_default())
        .into_response();
    }
    let (backup_ok, backup) = state.backup_status.health();
    data(Health {
        status: if backup_ok && checks.clock == "ok" {
            "ok"
        } else {
            "degraded"
        },
        database: "ok",
        backup,
        version: VERSION,
        checks,
    })
    .into_response()
}

/// Stuck when no dispatcher pass has ended for `heartbeat::stale_after`.
fn dispatcher_check(state: &AppState) -> Option<String> {
    let since = state.engine.heartbeat.since_last();
    let limit = heartbeat::stale_after(&state.settings);
    if since < limit {
        return None;
    }
    tracing::error!(
        "health: no dispatcher pass has finished for {} s",
        since.as_secs()
    );
    Some(format!(
        "no pass has finished for {} s (the limit is {} s)",
        since.as_secs(),
        limit.as_secs()
    ))
}

pub async fn migrations_status(State(state): State<AppState>) -> ApiResult<Json<Data<migrations::Status>>> {
    let status = state
        .db
        .read(|conn| migrations::status(conn).map_err(|e| ApiError::internal(e.to_string())))
        .await?;
    Ok(data(status))
}

#[derive(Serialize, ToSchema)]
pub struct VersionInfo {
    /// The server's version, e.g. `0.1.0`.
    version: &'static str,
}

/// The server's version.
#[utoipa::path(
    get,
    path = "/version",
    tag = "instance",
    security(()),
    responses((status = 200, description = "The server's version", body = Data<VersionInfo>)),
)]
pub async fn version() -> Json<Data<VersionInfo>> {
    data(VersionInfo { version: VERSION })
}

pub async fn api_not_found() -> ApiError {
    ApiError::not_found("Not found")
}

pub async fn api_method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed")
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(version))
}

//! Instance endpoints: health, schema status and version.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::AppState;
use super::error::{ApiError, ApiResult, Data, data};
use crate::db::migrations;
use crate::services::jobs::BackupHealth;
use crate::version::VERSION;

/// The answer of `/health`.
#[derive(Serialize)]
pub struct Health {
    /// `ok`, or `degraded` while the last instance backup failed.
    status: &'static str,
    database: &'static str,
    backup: BackupHealth,
    version: &'static str,
}

/// Healthy when the database answers a query; a failed instance backup shows as "degraded".
pub async fn health(State(state): State<AppState>) -> Response {
    let probe = state
        .db
        .read(|conn| {
            conn.query_row("SELECT 1", [], |row| row.get::<_, i64>(0))
                .map_err(ApiError::from)
        })
        .await;
    let (backup_ok, backup) = state.backup_status.health();
    match probe {
        // A failed backup is shown, not turned into downtime: a proxy's health check must
        // not take the app away from someone logging a dose because a disk filled up.
        Ok(_) => data(Health {
            status: if backup_ok { "ok" } else { "degraded" },
            database: "ok",
            backup,
            version: VERSION,
        })
        .into_response(),
        Err(e) => {
            tracing::error!("health check failed: {e:?}");
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "Database unavailable").into_response()
        }
    }
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

//! Instance endpoints: health, schema status and version.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::AppState;
use super::error::{ApiError, ApiResult, ok};
use crate::db::migrations;
use crate::version::VERSION;

/// Healthy when the database answers a query and the last instance backup did not fail.
pub async fn health(State(state): State<AppState>) -> Response {
    let probe = state
        .db
        .read(|conn| {
            conn.query_row("SELECT 1", [], |row| row.get::<_, i64>(0))
                .map_err(ApiError::from)
        })
        .await;
    let (backup_ok, backup) = super::data::backup_health(&state);
    match probe {
        Ok(_) if backup_ok => {
            ok(json!({ "status": "ok", "database": "ok", "backup": backup, "version": VERSION }))
                .into_response()
        }
        Ok(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({
                "success": false,
                "message": "The last backup failed: see the server log",
                "data": { "status": "degraded", "database": "ok", "backup": backup, "version": VERSION },
            })),
        )
            .into_response(),
        Err(e) => {
            tracing::error!("health check failed: {e:?}");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "success": false, "message": "Database unavailable" })),
            )
                .into_response()
        }
    }
}

pub async fn migrations_status(State(state): State<AppState>) -> ApiResult<Json<Value>> {
    let status = state
        .db
        .read(|conn| migrations::status(conn).map_err(|e| ApiError::internal(e.to_string())))
        .await?;
    Ok(ok(status))
}

pub async fn version() -> Json<Value> {
    ok(json!({ "version": VERSION }))
}

pub async fn api_not_found() -> ApiError {
    ApiError::not_found("Not found")
}

pub async fn api_method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed")
}

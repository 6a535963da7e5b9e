//! The person's data: export (JSON and CSV, streamed), import (with a dry run), the doctor
//! report, their daily auto-backups and the retention preview.

use std::io::{self, BufWriter, Write};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use tokio::sync::mpsc::{self, error::TrySendError};

use super::AppState;
use super::error::{ApiError, ApiResult, ok};
use super::extract::{ApiPath, ApiQuery, query_number};
use super::session::AuthUser;
use crate::services::import::{self, MAX_FILE_BYTES};
use crate::services::{ServiceError, export, report, retention, user_backups};
use axum::routing;
use utoipa_axum::router::OpenApiRouter;

/// Exports stream from a read connection (of the few there are) for as long as the client
/// reads: at most two at once, so the rest of the app always has readers left.
static EXPORTS: Semaphore = Semaphore::const_new(2);
static IMPORTS: Semaphore = Semaphore::const_new(1);
/// A client that takes nothing for this long has its export broken off.
const STALL_LIMIT: Duration = Duration::from_secs(30);

/// Hands what a blocking writer produces to the response body, chunk by chunk; a client
/// that went away, or stopped reading, ends the writing.
struct BodyWriter(mpsc::Sender<io::Result<Bytes>>);

impl Write for BodyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut chunk = Ok(Bytes::copy_from_slice(buf));
        let started = Instant::now();
        loop {
            match self.0.try_send(chunk) {
                Ok(()) => return Ok(buf.len()),
                Err(TrySendError::Closed(_)) => {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"));
                }
                Err(TrySendError::Full(back)) if started.elapsed() < STALL_LIMIT => {
                    chunk = back;
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(TrySendError::Full(_)) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client stopped reading",
                    ));
                }
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn attachment(content_type: &'static str, file_name: &str, body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{file_name}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

#[derive(Deserialize)]
pub struct ExportQuery {
    format: Option<String>,
}

/// The export file, streamed from one read transaction: a long history is never held in
/// memory whole.
pub async fn export(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<ExportQuery>,
) -> ApiResult<Response> {
    let csv = match q.format.as_deref().map(str::trim) {
        None | Some("" | "json") => false,
        Some("csv") => true,
        Some(_) => return Err(ApiError::bad_request("format must be json or csv")),
    };
    let day = state
        .db
        .read(move |conn| export::today_for(conn, user.id))
        .await?;
    let (sender, mut receiver) = mpsc::channel::<io::Result<Bytes>>(4);
    let db = state.db.clone();
    let turn = EXPORTS
        .acquire()
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    tokio::spawn(async move {
        let _turn = turn;
        let result = db
            .read(move |conn| {
                let mut out = BufWriter::with_capacity(64 * 1024, BodyWriter(sender.clone()));
                let written = if csv {
                    export::write_csv(conn, user.id, &mut out)
                } else {
                    export::write_json(conn, user.id, &mut out)
                };
                let written = written.and_then(|()| out.flush().map_err(ServiceError::from));
                if let Err(e) = &written {
                    // Break the body off: a truncated file must not look complete.
                    let _ = sender.blocking_send(Err(io::Error::other(e.to_string())));
                }
                written
            })
            .await;
        if let Err(e) = result {
            tracing::error!("export of user {} stopped: {e}", user.id);
        }
    });
    let stream = futures_util::stream::poll_fn(move |cx| receiver.poll_recv(cx));
    let body = Body::from_stream(stream);
    Ok(if csv {
        attachment("text/csv; charset=utf-8", &export::csv_file_name(day), body)
    } else {
        attachment("application/json", &export::json_file_name(day), body)
    })
}

#[derive(Deserialize)]
pub struct ImportQuery {
    dry_run: Option<String>,
}

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "The file is too large: at most {} MiB can be imported at once",
            MAX_FILE_BYTES / (1024 * 1024)
        ),
    )
}

/// Imports an export file or a history CSV; `?dry_run=true` answers what it would do.
pub async fn import(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<ImportQuery>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Json<Value>> {
    let dry_run = match q.dry_run.as_deref().map(str::trim) {
        None | Some("" | "false" | "0") => false,
        Some("true" | "1") => true,
        Some(_) => return Err(ApiError::bad_request("dry_run must be true or false")),
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_FILE_BYTES) {
        return Err(too_large());
    }
    let bytes = axum::body::to_bytes(body, MAX_FILE_BYTES)
        .await
        .map_err(|_| too_large())?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "The file is empty: choose a Pillbox export (.json) or a history CSV",
        ));
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let format = import::sniff(content_type.as_deref(), &bytes);
    let days = state.settings.reminders.horizon_days;
    // One import at a time: each holds its whole file in memory while it is checked.
    let _turn = IMPORTS
        .acquire()
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let checked = state
        .db
        .read(move |conn| import::check(conn, user.id, &bytes, format))
        .await?;
    let summary = state
        .db
        .write(move |conn| import::apply(conn, user.id, checked, dry_run, days))
        .await?;
    let message = if dry_run {
        "Nothing was changed: this is what the import would do"
    } else {
        "Import complete"
    };
    Ok(Json(
        json!({ "success": true, "message": message, "data": summary }),
    ))
}

#[derive(Deserialize)]
pub struct ReportQuery {
    from: Option<String>,
    to: Option<String>,
}

pub async fn report(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<ReportQuery>,
) -> ApiResult<Json<Value>> {
    let report = state
        .db
        .read(move |conn| report::build(conn, user.id, q.from.as_deref(), q.to.as_deref()))
        .await?;
    Ok(ok(report))
}

/// The person's kept daily exports, newest first.
pub async fn backups(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Json<Value>> {
    let dir = user_backups::dir_for(&state.backups_dir, user.id);
    let kept = tokio::task::spawn_blocking(move || user_backups::list(&dir))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(ok(kept))
}

pub async fn backup_file(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(name): ApiPath<String>,
) -> ApiResult<Response> {
    let dir = user_backups::dir_for(&state.backups_dir, user.id);
    let lookup = name.clone();
    let contents =
        tokio::task::spawn_blocking(move || user_backups::find(&dir, &lookup).map(std::fs::read).transpose())
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?
            .map_err(|e| ApiError::internal(e.to_string()))?
            .ok_or_else(|| ApiError::not_found("Backup not found"))?;
    Ok(attachment("application/json", &name, Body::from(contents)))
}

#[derive(Deserialize)]
pub struct RetentionQuery {
    days: Option<String>,
}

/// How many history entries a retention period would delete now.
pub async fn retention_preview(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<RetentionQuery>,
) -> ApiResult<Json<Value>> {
    let days = query_number(q.days.as_deref(), "days")?
        .ok_or_else(|| ApiError::bad_request("days is required: 0, 30, 90, 365 or 730"))?;
    let preview = state
        .db
        .read(move |conn| retention::preview(conn, user.id, days))
        .await?;
    Ok(ok(preview))
}

/// Whether the last instance backup succeeded, and its details for /health.
pub fn backup_health(state: &AppState) -> (bool, Value) {
    let health = state.backup_status.get();
    (health.error.is_none(), json!(health))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .route("/medications/history/retention", routing::get(retention_preview))
        .route("/export", routing::get(export))
        .route("/import", routing::post(import))
        .route("/report", routing::get(report))
        .route("/backups", routing::get(backups))
        .route("/backups/{name}", routing::get(backup_file))
}

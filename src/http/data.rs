//! The person's data: export (JSON and CSV, streamed), import (with a dry run), the doctor
//! report, their daily auto-backups and the retention preview.

use std::io::{self, BufWriter, Write};

use std::path::PathBuf;
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use futures_util::StreamExt;
use serde::Deserialize;
use tokio::sync::Semaphore;
use tokio::sync::mpsc::{self, error::TrySendError};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{MessageData, message_data};
use super::error::{ApiError, ApiResult, Data, ErrorBody, data};
use super::extract::{ApiPath, ApiQuery, query_number};
use super::routes;
use super::session::AuthUser;
use crate::services::import::{self, MAX_FILE_BYTES, OnServer, Source, Summary, Upload, UploadError};
use crate::services::import_sources::Origin;
use crate::services::report::Report;
use crate::services::retention::Preview;
use crate::services::user_backups::Kept;
use crate::services::{ServiceError, export, fhir, report, retention, user_backups};

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

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// `json` (the default), `csv` (the history only) or `fhir` (a FHIR R4 `Bundle`).
    #[param(pattern = "^(json|csv|fhir)$")]
    format: Option<String>,
    /// With `format=fhir`: only this one of the account's people.
    #[param(minimum = 1)]
    person_id: Option<i64>,
}

#[derive(Clone, Copy)]
enum ExportFormat {
    Json,
    Csv,
    Fhir,
}

/// The export file, streamed from one read transaction: a long history is never held in
/// memory whole.
#[utoipa::path(
    get,
    path = "/export",
    tag = "data",
    params(ExportQuery),
    responses(
        (status = 200, description = "The export file (attachment): everything as JSON, the history as CSV, or everything as a FHIR R4 Bundle (type collection)",
            content((ExportFileUpload = "application/json"), (String = "text/csv"), (FhirBundleUpload = "application/fhir+json"))),
        (status = 400, description = "Unknown format, or `person_id` with a format other than fhir", body = ErrorBody),
        (status = 404, description = "`person_id` is not one of the account's people (`person_not_found`)", body = ErrorBody),
    ),
)]
pub async fn export(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<ExportQuery>,
) -> ApiResult<Response> {
    let format = match q.format.as_deref().map(str::trim) {
        None | Some("" | "json") => ExportFormat::Json,
        Some("csv") => ExportFormat::Csv,
        Some("fhir") => ExportFormat::Fhir,
        Some(_) => return Err(ApiError::bad_request("format must be json, csv or fhir")),
    };
    let person_id = q.person_id;
    if person_id.is_some() && !matches!(format, ExportFormat::Fhir) {
        return Err(ApiError::bad_request(
            "person_id works with format=fhir only: the JSON and CSV exports hold the whole account",
        ));
    }
    let now = state.clock.now();
    let day = state
        .db
        .read(move |conn| {
            if let Some(id) = person_id {
                fhir::check_person(conn, user.id, id)?;
            }
            export::today_for(conn, user.id, now)
        })
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
                let written = match format {
                    ExportFormat::Csv => export::write_csv(conn, user.id, &mut out, now),
                    ExportFormat::Json => export::write_json(conn, user.id, now, &mut out),
                    ExportFormat::Fhir => fhir::write_bundle(conn, user.id, person_id, now, &mut out),
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
    Ok(match format {
        ExportFormat::Csv => attachment("text/csv; charset=utf-8", &export::csv_file_name(day), body),
        ExportFormat::Json => attachment("application/json", &export::json_file_name(day), body),
        ExportFormat::Fhir => attachment(fhir::CONTENT_TYPE, &fhir::file_name(day), body),
    })
}

/// A Pillbox export file as `GET /api/export` writes it (the document's name for the JSON
/// body of `POST /api/import`; the import checks every medication and entry in it).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ExportFileUpload {
    /// The file's format version, `1.x.y`: this Pillbox reads major version 1.
    #[schema(pattern = "^1(\\.[0-9]+)*$")]
    version: String,
    /// The medications, as the export writes them.
    medications: Vec<utoipa::openapi::Object>,
    /// The dose history, as the export writes it.
    history: Vec<utoipa::openapi::Object>,
    /// The people of the account (version 1.1 and later); each entry points to one of them.
    #[schema(value_type = Vec<Object>, required = false)]
    people: Option<Vec<utoipa::openapi::Object>>,
    #[schema(value_type = Object, required = false)]
    settings: Option<utoipa::openapi::Object>,
    #[schema(rename = "notificationPreferences", value_type = Object, required = false)]
    notification_preferences: Option<utoipa::openapi::Object>,
}

/// A FHIR R4 Bundle (the document's name for the body of `POST /api/import?source=fhir`):
/// its Patient, Medication, MedicationRequest and MedicationAdministration resources are
/// imported, other resources are left out with a notice.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct FhirBundleUpload {
    #[schema(value_type = FhirBundleType)]
    #[schema(rename = "resourceType")]
    resource_type: String,
    /// The bundle's entries, each with its `resource`.
    entry: Option<Vec<utoipa::openapi::Object>>,
}

/// `Bundle`.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub enum FhirBundleType {
    Bundle,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImportQuery {
    /// `true`: only answer what the import would do.
    #[param(pattern = "^(true|false|1|0)$")]
    dry_run: Option<String>,
    /// Whose file it is: `pillbox` (the default: an export file or a history CSV),
    /// `medtimer` (MedTimer's events or medicines CSV) or `fhir` (a FHIR R4 Bundle).
    #[param(pattern = "^(pillbox|medtimer|fhir)$")]
    source: Option<String>,
    /// `true`: import another app's file without the rows that cannot be read (the preview
    /// lists them).
    #[param(pattern = "^(true|false|1|0)$")]
    skip_unreadable: Option<String>,
}

fn flag(value: Option<&str>, name: &str) -> ApiResult<bool> {
    match value.map(str::trim) {
        None | Some("" | "false" | "0") => Ok(false),
        Some("true" | "1") => Ok(true),
        Some(_) => Err(ApiError::bad_request(format!("{name} must be true or false"))),
    }
}

fn too_large() -> ApiError {
    let mib = MAX_FILE_BYTES / (1024 * 1024);
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("The file is too large: at most {mib} MiB can be imported at once"),
    )
    .with_param("max_mib", mib)
}

/// Imports an export file or a history CSV, or another app's file (`source`); `?dry_run=true`
/// answers what it would do.
#[utoipa::path(
    post,
    path = "/import",
    tag = "data",
    params(ImportQuery),
    request_body(description = "A Pillbox export file or a history CSV; with `source=medtimer`, MedTimer's events or medicines CSV; with `source=fhir`, a FHIR R4 Bundle",
        content((ExportFileUpload = "application/json"), (String = "text/csv"), (FhirBundleUpload = "application/fhir+json"))),
    responses(
        (status = 200, description = "What the import did, or would do", body = MessageData<Summary>),
        (status = 400, description = "The file cannot be imported (`import_invalid`)", body = ErrorBody),
        (status = 409, description = "Another app's file has rows that cannot be read: nothing was imported (`import_has_unreadable_rows`; the preview lists them, `skip_unreadable=true` imports the rest)", body = ErrorBody),
        (status = 413, description = "The file is too large", body = ErrorBody),
    ),
)]
pub async fn import(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<ImportQuery>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Json<MessageData<Summary>>> {
    let dry_run = flag(q.dry_run.as_deref(), "dry_run")?;
    let skip_unreadable = flag(q.skip_unreadable.as_deref(), "skip_unreadable")?;
    let origin = Origin::parse(q.source.as_deref().unwrap_or_default())
        .ok_or_else(|| ApiError::bad_request("source must be pillbox, medtimer or fhir"))?;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_FILE_BYTES) {
        return Err(too_large());
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    // One import at a time: each reads its file several times and keeps what it decided
    // for every entry.
    let turn = IMPORTS
        .acquire()
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let source = receive(state.data_dir.to_path_buf(), body, content_type).await?;
    let days = state.settings.reminders.horizon_days;
    let now = state.clock.now();
    let db = OnServer::new(state.db.clone(), tokio::runtime::Handle::current());
    let dir = state.data_dir.to_path_buf();
    // The turn goes with the import: one whose client went away still finishes before the next.
    let summary = tokio::task::spawn_blocking(move || {
        let _turn = turn;
        import::run_from(
            &db,
            user.id,
            source,
            origin,
            &dir,
            dry_run,
            skip_unreadable,
            days,
            now,
        )
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))??;
    let said = if dry_run {
        "Nothing was changed: this is what the import would do"
    } else {
        "Import complete"
    };
    Ok(message_data(said, summary))
}

/// Writes the request's body into a file in the data directory as it arrives (an import is
/// read as a stream, never whole in memory), at most `MAX_FILE_BYTES` of it.
async fn receive(dir: PathBuf, body: Body, content_type: Option<String>) -> ApiResult<Source> {
    let failed = |e: std::io::Error| {
        if e.kind() == io::ErrorKind::StorageFull {
            ApiError::storage_full(e.to_string())
        } else {
            ApiError::internal(format!("cannot receive the file: {e}"))
        }
    };
    let blocking = |e: tokio::task::JoinError| ApiError::internal(e.to_string());
    let mut upload = tokio::task::spawn_blocking(move || Upload::create(&dir))
        .await
        .map_err(blocking)?
        .map_err(failed)?;
    let mut stream = body.into_data_stream();
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let chunk = stream.next().await;
        let done = chunk.is_none();
        if let Some(chunk) = chunk {
            let chunk = chunk.map_err(|e| ApiError::bad_request(format!("The upload broke off: {e}")))?;
            pending.extend_from_slice(&chunk);
        }
        if pending.len() >= RECEIVE_BUFFER || (done && !pending.is_empty()) {
            let bytes = std::mem::take(&mut pending);
            let (returned, written) = tokio::task::spawn_blocking(move || {
                let written = upload.append(&bytes);
                (upload, written)
            })
            .await
            .map_err(blocking)?;
            upload = returned;
            match written {
                Ok(()) => {}
                Err(UploadError::TooLarge) => return Err(too_large()),
                Err(UploadError::Io(e)) => return Err(failed(e)),
            }
        }
        if done {
            break;
        }
    }
    tokio::task::spawn_blocking(move || upload.finish(content_type.as_deref()))
        .await
        .map_err(blocking)?
        .map_err(failed)
}

/// What a request's body is gathered into before it is written to the upload's file.
const RECEIVE_BUFFER: usize = 1 << 20;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReportQuery {
    /// The first day, YYYY-MM-DD (default: 29 days before `to`).
    from: Option<String>,
    /// The last day, YYYY-MM-DD (default: today in the person's zone).
    to: Option<String>,
}

/// The doctor report over a period.
#[utoipa::path(
    get,
    path = "/report",
    tag = "data",
    params(ReportQuery),
    responses(
        (status = 200, description = "The report", body = Data<Report>),
        (status = 400, description = "A date that cannot be read, or a period that is backwards or too long", body = ErrorBody),
    ),
)]
pub async fn report(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<ReportQuery>,
) -> ApiResult<Json<Data<Report>>> {
    let now = state.clock.now();
    let report = state
        .db
        .read(move |conn| report::build(conn, user.id, q.from.as_deref(), q.to.as_deref(), now))
        .await?;
    Ok(data(report))
}

/// The person's kept daily exports, newest first.
#[utoipa::path(
    get,
    path = "/backups",
    tag = "data",
    responses(
        (status = 200, description = "The kept exports", body = Data<Vec<Kept>>),
    ),
)]
pub async fn backups(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<Vec<Kept>>>> {
    let dir = user_backups::dir_for(&state.backups_dir, user.id);
    let kept = tokio::task::spawn_blocking(move || user_backups::list(&dir))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(data(kept))
}

/// One kept export, as a download.
#[utoipa::path(
    get,
    path = "/backups/{name}",
    tag = "data",
    params(("name" = String, Path, description = "The file name, e.g. `pillbox-export-2026-01-02.json`")),
    responses(
        (status = 200, description = "The export file (attachment)", content((Object = "application/json"))),
        (status = 404, description = "No such kept export (`backup_not_found`)", body = ErrorBody),
    ),
)]
pub async fn backup_file(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(name): ApiPath<String>,
) -> ApiResult<Response> {
    let dir = user_backups::dir_for(&state.backups_dir, user.id);
    let lookup = name.clone();
    let contents = tokio::task::spawn_blocking(move || user_backups::read(&dir, &lookup))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(attachment("application/json", &name, Body::from(contents)))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RetentionQuery {
    /// 0, 30, 90, 365 or 730.
    #[param(required = true, value_type = String, pattern = "^(0|30|90|365|730)$")]
    days: Option<String>,
}

/// How many history entries a retention period would delete now.
#[utoipa::path(
    get,
    path = "/medications/history/retention",
    tag = "data",
    params(RetentionQuery),
    responses(
        (status = 200, description = "What would be deleted", body = Data<Preview>),
        (status = 400, description = "No period, or not one of the choices", body = ErrorBody),
    ),
)]
pub async fn retention_preview(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<RetentionQuery>,
) -> ApiResult<Json<Data<Preview>>> {
    let days = query_number(q.days.as_deref(), "days")?
        .ok_or_else(|| ApiError::bad_request("days is required: 0, 30, 90, 365 or 730"))?;
    let now = state.clock.now();
    let preview = state
        .db
        .read(move |conn| retention::preview(conn, user.id, days, now))
        .await?;
    Ok(data(preview))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(retention_preview))
        .routes(routes!(export))
        .routes(routes!(import))
        .routes(routes!(report))
        .routes(routes!(backups))
        .routes(routes!(backup_file))
}

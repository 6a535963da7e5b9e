//! The one error type of the HTTP layer. Every failure becomes
//! `{"success": false, "message": "…", "code": "…"}` with the right status; internal details
//! go to the log only. `code` is stable and machine-readable (see `services::ErrorCode`);
//! where the message has values in it, `params` carries them for translations.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::db::DbError;
use crate::services::{ErrorCode, Problem, ServiceError};

#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: ErrorCode,
    message: String,
    /// Logged, never sent.
    detail: Option<String>,
    /// Values named in the message, for translations (`params` in the body).
    params: Map<String, Value>,
    /// Extra top-level fields for the body (e.g. `requiresEmailVerification`).
    extra: Map<String, Value>,
    retry_after_secs: Option<u64>,
}

/// The body of every error answer.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// Always false.
    pub success: bool,
    /// What went wrong, in English, for a person.
    pub message: String,
    /// What went wrong, for a program: stable, never renamed.
    pub code: ErrorCode,
    /// Values named in the message (a unit, a date), when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
}

pub type ApiResult<T> = Result<T, ApiError>;

/// The code an error has when its site names none: the status says enough.
fn default_code(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::BAD_REQUEST => ErrorCode::ValidationFailed,
        StatusCode::UNAUTHORIZED => ErrorCode::AuthenticationRequired,
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::BodyTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
        StatusCode::SERVICE_UNAVAILABLE => ErrorCode::ServiceUnavailable,
        s if s.is_server_error() => ErrorCode::InternalError,
        _ => ErrorCode::InvalidRequest,
    }
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code: default_code(status),
            message: message.into(),
            detail: None,
            params: Map::new(),
            extra: Map::new(),
            retry_after_secs: None,
        }
    }

    /// An error with its own code.
    pub fn coded(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> ApiError {
        Self::new(status, message).with_code(code)
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// A 500 whose body says only "Internal server error"; `detail` goes to the log.
    pub fn internal(detail: impl Into<String>) -> ApiError {
        ApiError {
            detail: Some(detail.into()),
            ..Self::new(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error")
        }
    }

    /// A 507: the disk is full and the change was rolled back; `detail` goes to the log (as a
    /// server error: the administrator must act).
    pub fn storage_full(detail: impl Into<String>) -> ApiError {
        ApiError {
            detail: Some(detail.into()),
            ..Self::coded(
                StatusCode::INSUFFICIENT_STORAGE,
                ErrorCode::StorageFull,
                "The server's disk is full, so nothing was saved. Ask the person who runs Pillbox to free some space, then try again.",
            )
        }
    }

    /// A 429: too many attempts, retry after `secs` (also in the Retry-After header).
    pub fn too_many(secs: u64) -> ApiError {
        Self::coded(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            "Too many attempts. Please try again later.",
        )
        .with_retry_after(secs)
    }

    pub fn with_code(mut self, code: ErrorCode) -> ApiError {
        self.code = code;
        self
    }

    pub fn with_param(mut self, key: &str, value: impl Into<Value>) -> ApiError {
        self.params.insert(key.to_owned(), value.into());
        self
    }

    pub fn with_field(mut self, key: &str, value: impl Into<Value>) -> ApiError {
        self.extra.insert(key.to_owned(), value.into());
        self
    }

    pub fn with_retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after_secs = Some(secs);
        self
    }

    fn from_problem(status: StatusCode, problem: Problem) -> ApiError {
        ApiError {
            params: problem.params,
            ..ApiError::coded(status, problem.code, problem.message)
        }
    }
}

/// Every service error's status and body, in this one place.
impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::Invalid(p) => ApiError::from_problem(StatusCode::BAD_REQUEST, p),
            ServiceError::NotFound(p) => ApiError::from_problem(StatusCode::NOT_FOUND, p),
            ServiceError::Conflict(p) => ApiError::from_problem(StatusCode::CONFLICT, p),
            ServiceError::Forbidden(p) => ApiError::from_problem(StatusCode::FORBIDDEN, p),
            ServiceError::Unauthorized(p) => ApiError::coded(StatusCode::UNAUTHORIZED, p.code, p.message),
            ServiceError::EmailNotVerified => ApiError::coded(
                StatusCode::FORBIDDEN,
                ErrorCode::EmailNotVerified,
                "Please verify your email address before signing in",
            )
            .with_field("requiresEmailVerification", true),
            ServiceError::TwoFactorRequired { methods, preferred } => ApiError::coded(
                StatusCode::UNAUTHORIZED,
                ErrorCode::TwoFactorRequired,
                "Two-factor authentication code required",
            )
            .with_field("requires2FA", true)
            .with_field(
                "availableMethods",
                serde_json::to_value(methods).unwrap_or_default(),
            )
            .with_field(
                "preferredMethod",
                serde_json::to_value(preferred).unwrap_or_default(),
            ),
            ServiceError::Limited(secs) => ApiError::too_many(secs),
            ServiceError::Unavailable(p) => {
                ApiError::coded(StatusCode::SERVICE_UNAVAILABLE, p.code, p.message)
            }
            ServiceError::Internal(detail) => ApiError::internal(detail),
            ServiceError::Database(e) if crate::db::is_storage_full(&e) => {
                ApiError::storage_full(e.to_string())
            }
            other @ (ServiceError::Database(_) | ServiceError::Io(_)) => {
                ApiError::internal(other.to_string())
            }
        }
    }
}

impl From<DbError> for ApiError {
    fn from(e: DbError) -> Self {
        match &e {
            DbError::Sqlite(inner) if crate::db::is_storage_full(inner) => {
                ApiError::storage_full(e.to_string())
            }
            _ => ApiError::internal(e.to_string()),
        }
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        if crate::db::is_storage_full(&e) {
            return ApiError::storage_full(format!("database error: {e}"));
        }
        ApiError::internal(format!("database error: {e}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::error!(
                status = self.status.as_u16(),
                detail = self.detail.as_deref().unwrap_or(&self.message),
                "request failed"
            );
        }
        let mut body = Map::new();
        body.insert("success".into(), Value::Bool(false));
        body.insert("message".into(), Value::String(self.message));
        body.insert("code".into(), Value::String(self.code.as_str().to_owned()));
        if !self.params.is_empty() {
            body.insert("params".into(), Value::Object(self.params));
        }
        body.extend(self.extra);
        let mut response = (self.status, axum::Json(Value::Object(body))).into_response();
        if let Some(secs) = self.retry_after_secs {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// The body of every successful answer: `{"success": true, "data": …}`.
#[derive(Serialize, ToSchema)]
pub struct Data<T> {
    /// Always true.
    pub success: bool,
    pub data: T,
}

/// `{"success": true, "data": …}` from a typed value (documented as `Data<T>`).
pub fn data<T: Serialize>(data: T) -> axum::Json<Data<T>> {
    axum::Json(Data { success: true, data })
}

/// `{"success": true, "data": …}` as bytes, for a large answer whose size is roughly known:
/// written into a buffer of `capacity` bytes from the start (axum's `Json` starts at 128
/// bytes and grows by copying).
pub fn data_bytes<T: Serialize>(data: T, capacity: usize) -> ApiResult<Vec<u8>> {
    let mut body = Vec::with_capacity(capacity);
    serde_json::to_writer(&mut body, &Data { success: true, data })
        .map_err(|e| ApiError::internal(format!("serialising an answer: {e}")))?;
    Ok(body)
}

//! The one error type of the HTTP layer. Every failure becomes
//! `{"success": false, "message": "…"}` with the right status; internal details go to the
//! log only.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::db::DbError;

#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    /// Logged, never sent.
    detail: Option<String>,
    /// Extra top-level fields for the body (e.g. `requiresEmailVerification`).
    extra: Map<String, Value>,
    retry_after_secs: Option<u64>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            detail: None,
            extra: Map::new(),
            retry_after_secs: None,
        }
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

    pub fn with_field(mut self, key: &str, value: impl Into<Value>) -> ApiError {
        self.extra.insert(key.to_owned(), value.into());
        self
    }

    pub fn with_retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after_secs = Some(secs);
        self
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<DbError> for ApiError {
    fn from(e: DbError) -> Self {
        ApiError::internal(e.to_string())
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
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

/// `{"success": true, "data": …}`
pub fn ok<T: serde::Serialize>(data: T) -> axum::Json<Value> {
    axum::Json(json!({ "success": true, "data": data }))
}

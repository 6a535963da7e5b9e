//! Extractors whose rejections use our error envelope: `ApiJson<T>` (a wrong type is a 400,
//! an oversized body a 413), `ApiPath<T>` (an id that cannot exist is a 404) and
//! `ApiQuery<T>` (a malformed query string is a 400), never a plain-text answer.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;

use super::error::{ApiError, ApiResult};
use super::server::BodyTimedOut;
use crate::services::ErrorCode;

pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    axum::Json<T>: FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(value)) => Ok(ApiJson(value)),
            Err(rejection) => Err(reject(rejection)),
        }
    }
}

fn reject(rejection: JsonRejection) -> ApiError {
    if timed_out(&rejection) {
        return body_timed_out();
    }
    match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "Request body is too large")
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Expected a JSON body (Content-Type: application/json)",
        ),
        _ => match rejection {
            // serde's text names the field and the expected type; it never holds server internals.
            JsonRejection::JsonDataError(e) => {
                malformed(format!("Invalid request body: {}", serde_detail(&e.body_text())))
            }
            _ => malformed("Invalid request body: malformed JSON"),
        },
    }
}

/// Whether reading the body failed because it did not arrive in time (server.rs).
pub fn timed_out(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = Some(error);
    while let Some(error) = source {
        if error.is::<BodyTimedOut>() {
            return true;
        }
        source = error.source();
    }
    false
}

/// The body did not arrive within `http.body_timeout_seconds`.
pub fn body_timed_out() -> ApiError {
    ApiError::coded(
        StatusCode::REQUEST_TIMEOUT,
        ErrorCode::RequestTimeout,
        "The request body did not arrive in time",
    )
}

/// A body, query or path that cannot be read as the route expects (`invalid_request`).
fn malformed(message: impl Into<String>) -> ApiError {
    ApiError::coded(StatusCode::BAD_REQUEST, ErrorCode::InvalidRequest, message)
}

/// axum prefixes serde's message with its own sentence; keep serde's part.
fn serde_detail(text: &str) -> &str {
    text.split_once(": ").map(|(_, rest)| rest).unwrap_or(text)
}

/// A path parameter; one that does not parse (`/api/medications/abc`) names nothing: 404.
pub struct ApiPath<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    T: serde::de::DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(ApiPath(value)),
            Err(_) => Err(ApiError::not_found("Not found").with_code(ErrorCode::InvalidRequest)),
        }
    }
}

/// Query parameters; a query string that does not fit (`?status=a&status=b`) is a 400.
pub struct ApiQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    T: serde::de::DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(value)) => Ok(ApiQuery(value)),
            Err(rejection) => Err(malformed(format!(
                "Invalid query string: {}",
                rejection.body_text()
            ))),
        }
    }
}

/// An optional whole-number query parameter (blank is absent); anything else is a 400
/// naming it.
pub fn query_number(value: Option<&str>, label: &str) -> ApiResult<Option<i64>> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| {
            v.parse::<i64>()
                .map_err(|_| malformed(format!("{label} must be a whole number")).with_param("name", label))
        })
        .transpose()
}

/// The client-address extractor (`security::client_ip::ClientIp`) reads the trusted proxies
/// from the state without knowing the HTTP layer's state type.
impl axum::extract::FromRef<super::AppState> for crate::security::client_ip::TrustedProxies {
    fn from_ref(state: &super::AppState) -> Self {
        crate::security::client_ip::TrustedProxies(state.trusted_proxies.clone())
    }
}

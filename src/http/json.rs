//! `ApiJson<T>`: axum's JSON extractor with rejections turned into our error envelope, so a
//! wrong type is a 400 and an oversized body a 413, never a plain-text answer.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;

use super::error::ApiError;

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
                ApiError::bad_request(format!("Invalid request body: {}", serde_detail(&e.body_text())))
            }
            _ => ApiError::bad_request("Invalid request body: malformed JSON"),
        },
    }
}

/// axum prefixes serde's message with its own sentence; keep serde's part.
fn serde_detail(text: &str) -> &str {
    text.split_once(": ").map(|(_, rest)| rest).unwrap_or(text)
}

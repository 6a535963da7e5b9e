//! Refusals shared by the handlers: a rate limit's 429, and the account services' errors as
//! answers.

use axum::http::StatusCode;

use super::error::{ApiError, ApiResult};
use crate::security::rate_limit::Limited;
use crate::services::ErrorCode;
use crate::services::accounts::AccountError;

const TOO_MANY: &str = "Too many attempts. Please try again later.";

fn too_many(secs: u64) -> ApiError {
    ApiError::coded(StatusCode::TOO_MANY_REQUESTS, ErrorCode::RateLimited, TOO_MANY).with_retry_after(secs)
}

/// Turns a rate-limit refusal into a 429 with Retry-After.
pub fn limited(result: Result<(), Limited>) -> ApiResult<()> {
    result.map_err(|Limited(secs)| too_many(secs))
}

impl From<AccountError> for ApiError {
    fn from(e: AccountError) -> Self {
        match e {
            AccountError::Service(e) => e.into(),
            AccountError::Unauthorized(p) => ApiError::coded(StatusCode::UNAUTHORIZED, p.code, p.message),
            AccountError::EmailNotVerified => ApiError::coded(
                StatusCode::FORBIDDEN,
                ErrorCode::EmailNotVerified,
                "Please verify your email address before signing in",
            )
            .with_field("requiresEmailVerification", true),
            AccountError::TwoFactorRequired { methods, preferred } => ApiError::coded(
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
            AccountError::Limited(secs) => too_many(secs),
            AccountError::Unavailable(p) => {
                ApiError::coded(StatusCode::SERVICE_UNAVAILABLE, p.code, p.message)
            }
            AccountError::Internal(detail) => ApiError::internal(detail),
        }
    }
}

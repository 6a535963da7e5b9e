//! A rate limit's refusal as an answer: 429 with Retry-After.

use super::error::{ApiError, ApiResult};
use crate::security::rate_limit::Limited;

/// Turns a rate-limit refusal into a 429 with Retry-After.
pub fn limited(result: Result<(), Limited>) -> ApiResult<()> {
    result.map_err(|Limited(secs)| ApiError::too_many(secs))
}

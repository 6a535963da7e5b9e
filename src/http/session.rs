//! Signed-in requests: `AuthUser` reads the bearer token, checks its signature, expiry and
//! the user's current token version, and loads the user. Anything else is a 401.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};

use super::AppState;
use super::error::ApiError;
use crate::services::ErrorCode;
use crate::services::accounts::Accounts;
use crate::store::users::User;

pub struct AuthUser(pub User);

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let token = bearer_token(&parts.headers).ok_or_else(|| {
            ApiError::coded(
                StatusCode::UNAUTHORIZED,
                ErrorCode::AuthenticationRequired,
                "Authentication required",
            )
        })?;
        match accounts(state).user_for_token(token, state.clock.now()).await? {
            Some(user) => Ok(AuthUser(user)),
            None => Err(ApiError::coded(
                StatusCode::UNAUTHORIZED,
                ErrorCode::SessionExpired,
                "Invalid or expired session",
            )),
        }
    }
}

/// The token of an `Authorization: Bearer …` header, if there is a non-empty one.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

/// The account services over this server's database, limits, mailer and keys.
pub fn accounts(state: &AppState) -> Accounts<'_> {
    Accounts {
        db: &state.db,
        limits: &state.limits,
        revoked: &state.revoked_sessions,
        mailer: &state.mailer,
        key: &state.secrets.jwt_key,
        signups: state.settings.signups,
        link_base: state.settings.link_base(),
    }
}

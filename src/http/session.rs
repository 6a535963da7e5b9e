//! Signed-in requests: `AuthUser` reads the bearer token, checks its signature, expiry and
//! the user's current token version, and loads the user. Anything else is a 401.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};

use super::AppState;
use super::error::{ApiError, ApiResult};
use crate::security::session;
use crate::store::users::{self, User};

pub struct AuthUser(pub User);

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let token = bearer_token(&parts.headers)
            .ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "Authentication required"))?;
        match user_for_token(state, token).await? {
            Some(user) => Ok(AuthUser(user)),
            None => Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
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

/// The user a token belongs to, if the token is valid and of the user's current version.
pub async fn user_for_token(state: &AppState, token: &str) -> ApiResult<Option<User>> {
    let Some(claims) = session::decode(&state.secrets.jwt_key, token) else {
        return Ok(None);
    };
    let user = state
        .db
        .read(move |conn| users::find_by_id(conn, claims.sub).map_err(ApiError::from))
        .await?;
    Ok(user.filter(|u| u.token_version == claims.ver))
}

pub fn issue_token(state: &AppState, user_id: i64, token_version: i64) -> ApiResult<String> {
    session::issue(&state.secrets.jwt_key, user_id, token_version)
        .map_err(|e| ApiError::internal(format!("cannot sign a session token: {e}")))
}

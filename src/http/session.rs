//! Signed-in requests: `AuthUser` reads the bearer token, checks its signature, expiry and
//! the user's current token version, and loads the user. A request without a token may
//! instead carry a trusted proxy's sign-in header (`proxy_user`). Anything else is a 401; an
//! API token is a 403 `token_not_allowed` there. `AuthCaller` is for the routes an API token may
//! use too (a person's medications and history): a session, or a token within its scope.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};

use super::AppState;
use super::error::ApiError;
use crate::security::proxy_header::ProxyClaim;
use crate::services::ErrorCode;
use crate::services::access::Caller;
use crate::services::accounts::Accounts;
use crate::services::api_tokens::{self, Refusal};
use crate::store::users::User;

pub struct AuthUser(pub User);

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let Some(token) = bearer_token(&parts.headers) else {
            if let Some(user) = proxy_user(parts, state).await? {
                return Ok(AuthUser(user));
            }
            return Err(ApiError::coded(
                StatusCode::UNAUTHORIZED,
                ErrorCode::AuthenticationRequired,
                "Authentication required",
            ));
        };
        refuse_api_token(token, parts.uri.path())?;
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

/// The account a trusted proxy's header names, if any (ignoring a bearer token).
pub struct ProxyUser(pub Option<User>);

impl FromRequestParts<AppState> for ProxyUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        Ok(ProxyUser(proxy_user(parts, state).await?))
    }
}

/// The account a trusted proxy's header names (`auth.proxy_header`), for a request without a
/// token; `None` when the request carries no header that is believed. The peer address of the
/// connection decides whether the proxy is trusted, never a header.
pub async fn proxy_user(parts: &Parts, state: &AppState) -> Result<Option<User>, ApiError> {
    let Some(proxy) = &state.proxy_header else {
        return Ok(None);
    };
    let Some(ConnectInfo(peer)) = parts.extensions.get::<ConnectInfo<SocketAddr>>() else {
        return Ok(None);
    };
    match proxy.claim(peer.ip(), &parts.headers) {
        ProxyClaim::Absent | ProxyClaim::Ignored => Ok(None),
        ProxyClaim::Named(identity) => Ok(Some(
            accounts(state)
                .proxy_account(&identity, proxy.auto_register(), state.clock.now())
                .await?,
        )),
    }
}

/// Whether a trusted proxy sent this request naming a person, without looking the person up.
pub fn proxy_names_someone(parts: &Parts, state: &AppState) -> bool {
    let (Some(proxy), Some(ConnectInfo(peer))) = (
        &state.proxy_header,
        parts.extensions.get::<ConnectInfo<SocketAddr>>(),
    ) else {
        return false;
    };
    matches!(proxy.claim(peer.ip(), &parts.headers), ProxyClaim::Named(_))
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
        passkeys: state.passkeys.as_deref(),
    }
}

/// 403 `token_not_allowed` for an API token: the account, its sign-in, sessions, two-factor,
/// tokens, export, import and deletion answer only a password sign-in's session.
pub fn refuse_api_token(bearer: &str, path: &str) -> Result<(), ApiError> {
    if !api_tokens::is_api_token(bearer) {
        return Ok(());
    }
    tracing::warn!(%path, "API token refused: this route needs a password sign-in");
    Err(ApiError::coded(
        StatusCode::FORBIDDEN,
        ErrorCode::TokenNotAllowed,
        "API tokens cannot be used here: sign in with your password to do this",
    ))
}

/// Who asks on a route an API token may use: a signed-in user (as `AuthUser` finds them), or
/// an API token, checked against the database on every request so that a revoked or expired
/// one is refused at once (401 `api_token_invalid`).
pub struct AuthCaller(pub Caller);

impl FromRequestParts<AppState> for AuthCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        match bearer_token(&parts.headers) {
            Some(token) if api_tokens::is_api_token(token) => {
                let token = token.to_owned();
                api_token_caller(token, parts, state).await.map(AuthCaller)
            }
            _ => {
                let AuthUser(user) = AuthUser::from_request_parts(parts, state).await?;
                Ok(AuthCaller(Caller::User(user.id)))
            }
        }
    }
}

async fn api_token_caller(token: String, parts: &Parts, state: &AppState) -> Result<Caller, ApiError> {
    let now = state.clock.now();
    let checked = state
        .db
        .read_inline(move |conn| api_tokens::authenticate(conn, &token, now))
        .await?;
    let accepted = match checked {
        Ok(accepted) => accepted,
        Err(refusal) => {
            let path = parts.uri.path();
            match refusal {
                Refusal::Unknown => tracing::warn!(%path, "API token refused: unknown or revoked"),
                Refusal::Expired { token_id } => {
                    tracing::warn!(%path, token_id, "API token refused: expired")
                }
            }
            return Err(api_tokens::refused().into());
        }
    };
    if accepted.note_use
        && let Caller::Token { token_id, .. } = accepted.caller
    {
        state
            .db
            .write(move |conn| api_tokens::note_use(conn, token_id, now))
            .await?;
    }
    Ok(accepted.caller)
}

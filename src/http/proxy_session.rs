//! `POST /api/auth/proxy-session`: the web app's start behind an authenticating proxy. The
//! proxy's header already makes every request that carries it the account's (see session.rs);
//! this hands the app an ordinary session for it, in the answer's body (never in a URL), so
//! the app starts signed in and everything else works as after a password sign-in.

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::error::{ApiResult, Data, ErrorBody, data};
use super::routes;
use super::session::{ProxyUser, accounts};
use crate::services::accounts::SignedIn;

/// A session for the person a trusted proxy signed in (`auth.proxy_header` from an address
/// in `auth.trusted_proxies`); `data` is null when the request carries no such header, and
/// the person signs in here instead. The proxy authenticated the person, so this is a full
/// sign-in: no password and no second factor are asked.
#[utoipa::path(
    post,
    path = "/auth/proxy-session",
    tag = "auth",
    security(()),
    responses(
        (status = 200, description = "A session for the person the proxy named, or null when no trusted proxy named anyone", body = Data<Option<SignedIn>>),
        (status = 403, description = "The proxy named a person without an account here, and the administrator has not let the proxy create accounts (`proxy_registration_not_allowed`), or it sent no e-mail address to create one with (`proxy_email_missing`)", body = ErrorBody),
    ),
)]
pub async fn proxy_session(
    State(state): State<AppState>,
    ProxyUser(user): ProxyUser,
) -> ApiResult<Json<Data<Option<SignedIn>>>> {
    let session = match user {
        Some(user) => Some(accounts(&state).proxy_session(&user, state.clock.now())?),
        None => None,
    };
    Ok(data(session))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(proxy_session))
}

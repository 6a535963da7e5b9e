//! `POST /api/auth/proxy-session`: the web app's start behind an authenticating proxy. The
//! proxy's header makes every request that carries it the account's (see session.rs), so the
//! app needs no token of its own there, and sends none: a proxy that authenticates with HTTP
//! basic authentication would refuse the app's `Authorization: Bearer` header in place of its
//! own. This tells the app whom the proxy signed in.

use axum::Json;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::error::{Data, ErrorBody, data};
use super::routes;
use super::session::ProxyUser;
use crate::services::accounts::Profile;

/// The person a trusted proxy signed in (`auth.proxy_header` from an address in
/// `auth.trusted_proxies`), made first when `auth.proxy_auto_register` allows; `data` is null
/// when the request carries no such header, and the person signs in here instead. The proxy
/// authenticated the person, so this is a full sign-in: no password and no second factor are
/// asked. Every request through the proxy is then this person's without a token.
#[utoipa::path(
    post,
    path = "/auth/proxy-session",
    tag = "auth",
    security(()),
    responses(
        (status = 200, description = "The person the proxy signed in, or null when no trusted proxy named anyone", body = Data<Option<Profile>>),
        (status = 403, description = "The proxy named a person without an account here, and the administrator has not let the proxy create accounts (`proxy_registration_not_allowed`), or it sent no e-mail address to create one with (`proxy_email_missing`)", body = ErrorBody),
    ),
)]
pub async fn proxy_session(ProxyUser(user): ProxyUser) -> Json<Data<Option<Profile>>> {
    if let Some(user) = &user {
        tracing::info!(
            user = user.id,
            "the web app started signed in by the authenticating proxy"
        );
    }
    data(user.as_ref().map(Profile::from))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(proxy_session))
}

//! `/api/auth/providers` and `/api/auth/oidc/*`: signing in through an OpenID Connect
//! provider. The provider returns to the callback, which sends the browser into the app with
//! a one-time code; the app exchanges it for an ordinary session.

use axum::Json;
use axum::extract::{Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::error::{ApiResult, Data, ErrorBody, data};
use super::extract::ApiJson;
use super::routes;
use super::session::{accounts, proxy_names_someone};
use crate::services::accounts::SignedIn;
use crate::services::oidc::{Oidc, Returned};
use crate::services::{ErrorCode, Problem, ServiceError};

/// What the sign-in page offers.
#[derive(Serialize, ToSchema)]
pub struct Providers {
    /// The e-mail and password form (off with `oidc.disable_password_login`; `/login?local=1`
    /// still shows it).
    password: bool,
    /// The OpenID Connect provider, when one is set up.
    oidc: Option<OidcProvider>,
    /// A trusted proxy (`auth.trusted_proxies`) sent this request naming a person
    /// (`auth.proxy_header`): `POST /api/auth/proxy-session` signs that person in. The app
    /// asks it only then.
    proxy: bool,
}

#[derive(Serialize, ToSchema)]
pub struct OidcProvider {
    /// The button says "Sign in with <label>".
    label: String,
}

/// The ways to sign in on this server.
#[utoipa::path(
    get,
    path = "/auth/providers",
    tag = "auth",
    security(()),
    responses((status = 200, description = "What the sign-in page offers", body = Data<Providers>)),
)]
pub async fn providers(State(state): State<AppState>, request: Parts) -> Json<Data<Providers>> {
    let oidc = state.oidc.as_deref();
    data(Providers {
        proxy: proxy_names_someone(&request, &state),
        password: !oidc.is_some_and(Oidc::password_login_disabled),
        oidc: oidc.map(|o| OidcProvider {
            label: o.button_label().to_owned(),
        }),
    })
}

fn oidc_of(state: &AppState) -> Result<&Oidc, ServiceError> {
    state.oidc.as_deref().ok_or_else(|| {
        ServiceError::NotFound(Problem::new(
            ErrorCode::OidcNotConfigured,
            "Sign-in with an OpenID Connect provider is not set up on this server",
        ))
    })
}

fn see_other(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(value) => (StatusCode::SEE_OTHER, [(header::LOCATION, value)]).into_response(),
        Err(_) => StatusCode::BAD_REQUEST.into_response(),
    }
}

#[derive(Deserialize, IntoParams)]
pub struct StartQuery {
    /// The app's page to open after signing in (a path of this app; anything else is ignored).
    return_to: Option<String>,
}

/// Starts a sign-in at the provider: a redirect to its sign-in page.
#[utoipa::path(
    get,
    path = "/auth/oidc/start",
    tag = "auth",
    security(()),
    params(StartQuery),
    responses(
        (status = 303, description = "To the provider's sign-in page"),
        (status = 404, description = "No provider is set up (`oidc_not_configured`)", body = ErrorBody),
        (status = 503, description = "The provider cannot be reached (`oidc_failed`)", body = ErrorBody),
    ),
)]
pub async fn start(State(state): State<AppState>, Query(query): Query<StartQuery>) -> ApiResult<Response> {
    let oidc = oidc_of(&state)?;
    let url = oidc.start(query.return_to.as_deref(), state.clock.now()).await?;
    Ok(see_other(&url))
}

#[derive(Deserialize, IntoParams)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    /// The provider's refusal (`access_denied`, …).
    error: Option<String>,
}

/// The provider's return: into the app with a one-time code, or to the sign-in page with
/// the reason (`oidc_error`).
#[utoipa::path(
    get,
    path = "/auth/oidc/callback",
    tag = "auth",
    security(()),
    params(CallbackQuery),
    responses((status = 303, description = "To `/login?oidc_code=…` (with `return_to`), or `/login?oidc_error=<code>`")),
)]
pub async fn callback(State(state): State<AppState>, Query(query): Query<CallbackQuery>) -> Response {
    let refused = |code: ErrorCode| see_other(&format!("/login?oidc_error={}", code.as_str()));
    let Some(oidc) = state.oidc.as_deref() else {
        return refused(ErrorCode::OidcNotConfigured);
    };
    let (Some(code), Some(sign_in)) = (query.code.as_deref(), query.state.as_deref()) else {
        tracing::warn!(
            error = query.error.as_deref().unwrap_or("none"),
            "OpenID Connect return refused: the provider sent no code"
        );
        return refused(ErrorCode::OidcFailed);
    };
    match oidc.finish(&state.db, code, sign_in, state.clock.now()).await {
        Ok(Returned { code, return_to }) => {
            let mut pairs = url::form_urlencoded::Serializer::new(String::new());
            pairs.append_pair("oidc_code", &code);
            if let Some(path) = return_to {
                pairs.append_pair("return_to", &path);
            }
            see_other(&format!("/login?{}", pairs.finish()))
        }
        Err(
            ServiceError::Forbidden(p)
            | ServiceError::Unauthorized(p)
            | ServiceError::Conflict(p)
            | ServiceError::Unavailable(p),
        ) => refused(p.code),
        Err(e) => {
            tracing::warn!(error = %e, "OpenID Connect return failed");
            refused(ErrorCode::OidcFailed)
        }
    }
}

#[derive(Deserialize, ToSchema)]
pub struct ExchangeBody {
    /// The `oidc_code` the callback put in the app's address.
    #[schema(min_length = 1, max_length = 100)]
    code: String,
}

/// Exchanges the one-time code from the provider's return for a session.
#[utoipa::path(
    post,
    path = "/auth/oidc/exchange",
    tag = "auth",
    security(()),
    request_body = ExchangeBody,
    responses(
        (status = 200, description = "Signed in", body = Data<SignedIn>),
        (status = 400, description = "The body is not `{\"code\": \"…\"}`", body = ErrorBody),
        (status = 401, description = "The code is unknown, used or older than 60 s (`oidc_code_invalid`)", body = ErrorBody),
        (status = 404, description = "No provider is set up (`oidc_not_configured`)", body = ErrorBody),
    ),
)]
pub async fn exchange(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<ExchangeBody>,
) -> ApiResult<Json<Data<SignedIn>>> {
    let oidc = oidc_of(&state)?;
    let now = state.clock.now();
    let user_id = oidc.redeem(&body.code, now)?;
    let session = accounts(&state).session_for(user_id, now).await?.ok_or_else(|| {
        ServiceError::Unauthorized(Problem::new(
            ErrorCode::OidcCodeInvalid,
            "The account was deleted meanwhile",
        ))
    })?;
    Ok(data(session))
}

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(providers))
        .routes(routes!(start))
        .routes(routes!(callback))
        .routes(routes!(exchange))
}

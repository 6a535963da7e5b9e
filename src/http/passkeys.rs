//! `/api/auth/passkeys/*`: adding, listing and deleting the account's passkeys, and signing
//! in with one. The rules live in `services::passkeys`; a passkey as the second factor after
//! the password goes to `POST /api/auth/login` (`passkey`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{Message, message};
use super::error::{ApiResult, Data, ErrorBody, data};
use super::extract::{ApiJson, ApiPath};
use super::routes;
use super::session::{AuthUser, accounts};
use crate::security::client_ip::{ClientIp, limit_key};
use crate::services::accounts::SignedIn;
use crate::services::passkeys::{self, Assertion, CeremonyOptions, PasskeyView};

/// A passkey to store: the registration ceremony, the authenticator's answer and a name.
#[derive(Deserialize, ToSchema)]
pub struct NewPasskey {
    /// The `ceremony` of `POST /api/auth/passkeys/register/options`.
    #[schema(max_length = 100)]
    ceremony: String,
    /// What it is on ("Phone", "YubiKey"); 1 to 64 characters, trimmed.
    #[schema(max_length = 64)]
    name: String,
    /// The `PublicKeyCredential` from `navigator.credentials.create()` as JSON (binary fields
    /// in unpadded base64url): `id`, `rawId`, `type` and `response` with `attestationObject`
    /// and `clientDataJSON`.
    #[schema(value_type = Object)]
    credential: Value,
}

/// The account password, asked again before a passkey is added.
#[derive(Deserialize, ToSchema)]
pub struct RegisterOptionsBody {
    /// Required, except for an account whose password nobody knows (made by an OpenID
    /// Connect sign-in).
    #[serde(default)]
    password: String,
}

/// Starts adding a passkey: the options for `navigator.credentials.create()`, after the
/// account's password (a stolen session must not add a way in that outlives it).
#[utoipa::path(
    post,
    path = "/auth/passkeys/register/options",
    tag = "passkeys",
    request_body = RegisterOptionsBody,
    responses(
        (status = 200, description = "The ceremony and its options (valid five minutes, once)", body = Data<CeremonyOptions>),
        (status = 400, description = "The password is missing or wrong (`password_required`, `password_incorrect`)", body = ErrorBody),
        (status = 403, description = "Sent with an API token: sign in with your password (`token_not_allowed`)", body = ErrorBody),
        (status = 404, description = "The server has no passkeys: `public_url` is unset or names an IP address (`passkeys_not_configured`)", body = ErrorBody),
        (status = 409, description = "The account has 20 passkeys already (`passkey_limit_reached`)", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords (`rate_limited`)", body = ErrorBody),
    ),
)]
pub async fn register_options(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<RegisterOptionsBody>,
) -> ApiResult<Json<Data<CeremonyOptions>>> {
    let options = accounts(&state)
        .passkey_registration_options(&limit_key(ip), &user, body.password, state.clock.now())
        .await?;
    Ok(data(options))
}

/// Stores the passkey the authenticator made.
#[utoipa::path(
    post,
    path = "/auth/passkeys/register",
    tag = "passkeys",
    request_body = NewPasskey,
    responses(
        (status = 201, description = "Stored", body = Data<PasskeyView>),
        (status = 400, description = "`passkey_name_required`, `passkey_name_too_long`, `passkey_ceremony_invalid` (unknown, used, expired or another account's), `passkey_invalid` (the answer does not verify), `invalid_request`", body = ErrorBody),
        (status = 403, description = "Sent with an API token: sign in with your password (`token_not_allowed`)", body = ErrorBody),
        (status = 404, description = "The server has no passkeys (`passkeys_not_configured`)", body = ErrorBody),
        (status = 409, description = "`passkey_already_registered` or `passkey_limit_reached`", body = ErrorBody),
    ),
)]
pub async fn register(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<NewPasskey>,
) -> ApiResult<(StatusCode, Json<Data<PasskeyView>>)> {
    let service = passkeys::configured(state.passkeys.as_deref())?;
    let stored = service
        .register(
            &state.db,
            user.id,
            &body.ceremony,
            &body.name,
            body.credential,
            state.clock.now(),
        )
        .await?;
    Ok((StatusCode::CREATED, data(stored)))
}

/// Starts a sign-in with a passkey: the options for `navigator.credentials.get()`. No account
/// is named: the authenticator offers the passkeys it holds for this server.
#[utoipa::path(
    post,
    path = "/auth/passkeys/login/options",
    tag = "passkeys",
    security(()),
    responses(
        (status = 200, description = "The ceremony and its options (valid five minutes, once)", body = Data<CeremonyOptions>),
        (status = 404, description = "The server has no passkeys (`passkeys_not_configured`)", body = ErrorBody),
        (status = 429, description = "Too many from this address (`rate_limited`)", body = ErrorBody),
    ),
)]
pub async fn login_options(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
) -> ApiResult<Json<Data<CeremonyOptions>>> {
    let service = passkeys::configured(state.passkeys.as_deref())?;
    state
        .limits
        .passkey_options_per_client
        .hit(&limit_key(ip))
        .map_err(crate::services::ServiceError::from)?;
    Ok(data(service.sign_in_options(state.clock.now())?))
}

/// Signs in with a passkey's answer: the same session as a password sign-in. The passkey
/// verified its user, so two-factor asks for nothing more. Failures spend the sign-in budget.
#[utoipa::path(
    post,
    path = "/auth/passkeys/login",
    tag = "passkeys",
    security(()),
    request_body = Assertion,
    responses(
        (status = 200, description = "Signed in", body = Data<SignedIn>),
        (status = 400, description = "The body is not `{ceremony, credential}` (`invalid_request`)", body = ErrorBody),
        (status = 401, description = "`passkey_ceremony_invalid` (unknown, used or expired), `passkey_invalid` (unknown passkey, wrong challenge or origin, bad signature) or `passkey_counter_invalid` (a copied authenticator)", body = ErrorBody),
        (status = 403, description = "The address is not verified (`email_not_verified`)", body = ErrorBody),
        (status = 404, description = "The server has no passkeys (`passkeys_not_configured`)", body = ErrorBody),
        (status = 429, description = "The sign-in budget is spent (`rate_limited`, with Retry-After)", body = ErrorBody),
    ),
)]
pub async fn login(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<Assertion>,
) -> ApiResult<Json<Data<SignedIn>>> {
    let session = accounts(&state)
        .passkey_login(&limit_key(ip), body, state.clock.now())
        .await?;
    Ok(data(session))
}

/// The account's passkeys, oldest first.
#[utoipa::path(
    get,
    path = "/auth/passkeys",
    tag = "passkeys",
    responses(
        (status = 200, description = "The passkeys", body = Data<Vec<PasskeyView>>),
        (status = 403, description = "Sent with an API token: sign in with your password (`token_not_allowed`)", body = ErrorBody),
    ),
)]
pub async fn list(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<Vec<PasskeyView>>>> {
    Ok(data(passkeys::list(&state.db, user.id).await?))
}

/// Deletes one of the account's passkeys: it no longer signs in.
#[utoipa::path(
    delete,
    path = "/auth/passkeys/{id}",
    tag = "passkeys",
    params(("id" = i64, Path, description = "The passkey's id")),
    responses(
        (status = 200, description = "Deleted", body = Message),
        (status = 403, description = "Sent with an API token: sign in with your password (`token_not_allowed`)", body = ErrorBody),
        (status = 404, description = "None of your passkeys has this id (`passkey_not_found`)", body = ErrorBody),
        (status = 409, description = "It is the account's last way to sign in: no usable password and no OpenID Connect identity (`passkey_last_sign_in_method`)", body = ErrorBody),
    ),
)]
pub async fn delete(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Message>> {
    passkeys::delete(&state.db, user.id, id).await?;
    Ok(message("Passkey deleted"))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(register_options))
        .routes(routes!(register))
        .routes(routes!(login_options))
        .routes(routes!(login))
        .routes(routes!(list))
        .routes(routes!(delete))
}

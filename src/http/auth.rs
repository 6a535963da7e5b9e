//! `/api/auth/*`: registration, sign-in, tokens and signing out, profile, e-mail
//! verification, password.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{Message, MessageData, message, message_data};
use super::error::{ApiError, ApiResult, Data, ErrorBody, data};
use super::extract::ApiJson;
use super::routes;
use super::session::{AuthUser, accounts, bearer_token, refuse_api_token};
use crate::security::client_ip::{ClientIp, limit_key};
use crate::services::ErrorCode;
use crate::services::accounts::{Profile, Registered, Registration, Second, SignedIn};
use crate::services::passkeys::Assertion;

#[derive(Deserialize, ToSchema)]
pub struct Credentials {
    /// An e-mail address: at most 254 bytes, no spaces, with a dot in its domain.
    #[schema(required = true, format = Email, min_length = 3, max_length = 254)]
    #[serde(default)]
    email: String,
    /// Registering: at least 6 characters and at most 1024 bytes.
    #[schema(required = true, min_length = 6, max_length = 1024)]
    #[serde(default)]
    password: String,
    /// The second factor at sign-in: an authenticator or e-mail code, or a backup code.
    code: Option<String>,
    /// The same as `code` (older clients).
    otp: Option<String>,
    /// The second factor at sign-in as a passkey instead of a code: the ceremony of
    /// `POST /api/auth/passkeys/login/options` and the authenticator's answer. Offered when
    /// `two_factor_required` lists `passkey` among `availableMethods`.
    passkey: Option<Assertion>,
    /// Registering or signing in to accept an invitation to care for someone: the token of
    /// its link. Past the first account, it opens registration for the invited address only;
    /// it also proves that address, so the account needs no verification link.
    invitation: Option<String>,
    /// Registering: the language the app is shown in (`en`, `es`, `fr` or `de`), which the
    /// new account keeps for the app, its reminders and its e-mails. Not read at sign-in.
    #[schema(value_type = Option<String>, pattern = "^(en|es|fr|de)$")]
    language: Option<String>,
}

/// A new account waiting for its address to be verified.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AwaitingVerification {
    user: Profile,
    /// Always true.
    requires_email_verification: bool,
    /// Always true: the e-mail is queued with the account and sent (with retries) at once.
    verification_email_sent: bool,
}

/// The answer to a registration: signed in at once, or waiting for the e-mail link.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum RegisterAnswer {
    SignedIn(Data<SignedIn>),
    AwaitingVerification(MessageData<AwaitingVerification>),
}

/// Makes an account (when sign-ups are open). Without e-mail on this server the answer
/// signs the person in; with it, a verification link is sent first.
#[utoipa::path(
    post,
    path = "/auth/register",
    tag = "auth",
    security(()),
    request_body = Credentials,
    responses(
        (status = 201, description = "Created: signed in, or waiting for verification", body = RegisterAnswer),
        (status = 400, description = "Invalid e-mail address, password or language", body = ErrorBody),
        (status = 403, description = "Registration is closed (`registration_closed`)", body = ErrorBody),
        (status = 409, description = "The address has an account (`email_taken`)", body = ErrorBody),
        (status = 429, description = "Too many registrations from this address", body = ErrorBody),
    ),
)]
pub async fn register(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<Credentials>,
) -> ApiResult<Response> {
    let registered = accounts(&state)
        .register(
            &limit_key(ip),
            &body.email,
            body.password,
            body.invitation.as_deref(),
            body.language.as_deref(),
            state.clock.now(),
        )
        .await?;
    let answer = match registered {
        Registered::SignedIn(session) => RegisterAnswer::SignedIn(Data {
            success: true,
            data: session,
        }),
        Registered::Verify { user } => RegisterAnswer::AwaitingVerification(MessageData {
            success: true,
            message: "Account created. Check your email to verify your address.".into(),
            data: AwaitingVerification {
                user,
                requires_email_verification: true,
                verification_email_sent: true,
            },
        }),
    };
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// Signs in with the password and, when two-factor is on, a code. Without the code the
/// answer is a 401 `two_factor_required` that also carries `requires2FA`,
/// `availableMethods` and `preferredMethod`.
#[utoipa::path(
    post,
    path = "/auth/login",
    tag = "auth",
    security(()),
    request_body = Credentials,
    responses(
        (status = 200, description = "Signed in", body = Data<SignedIn>),
        (status = 400, description = "E-mail or password missing", body = ErrorBody),
        (status = 401, description = "`invalid_credentials`, `two_factor_required` or `invalid_code`; with `passkey`: `passkey_invalid`, `passkey_ceremony_invalid` or `passkey_counter_invalid`", body = ErrorBody),
        (status = 403, description = "The address is not verified (`email_not_verified`)", body = ErrorBody),
        (status = 404, description = "A `passkey` was sent to a server without passkeys (`passkeys_not_configured`)", body = ErrorBody),
        (status = 429, description = "Too many failures from this address at this account, or at the account from everywhere (`rate_limited`, with Retry-After)", body = ErrorBody),
    ),
)]
pub async fn login(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<Credentials>,
) -> ApiResult<Json<Data<SignedIn>>> {
    let code = body.code.or(body.otp);
    let session = accounts(&state)
        .login(
            &limit_key(ip),
            &body.email,
            body.password,
            Second::of(code.as_deref(), body.passkey),
            body.invitation.as_deref(),
            state.clock.now(),
        )
        .await?;
    Ok(data(session))
}

#[derive(Deserialize, ToSchema)]
pub struct RefreshBody {
    /// The current token; without it, the Authorization header's.
    token: Option<String>,
}

/// A fresh token for a valid one (from the body, or the Authorization header).
#[utoipa::path(
    post,
    path = "/auth/refresh",
    tag = "auth",
    security((), ("bearer" = [])),
    request_body(content = Option<RefreshBody>, description = "Optional: the token may come in the Authorization header instead"),
    responses(
        (status = 200, description = "A fresh session", body = Data<SignedIn>),
        (status = 400, description = "The body is not JSON of this shape (`invalid_request`)", body = ErrorBody),
        (status = 401, description = "The token is invalid or expired (`session_expired`)", body = ErrorBody),
    ),
)]
pub async fn refresh(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    body: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> ApiResult<Json<Data<SignedIn>>> {
    let body = body.map_err(|e| match super::extract::timed_out(&e) {
        true => super::extract::body_timed_out(),
        false => ApiError::new(e.status(), "Request body is too large"),
    })?;
    // The body is optional (empty or `null`): a client may send the token in the header only.
    let body: Option<RefreshBody> = match body.is_empty() {
        true => None,
        false => serde_json::from_slice(&body).map_err(|e| {
            ApiError::bad_request(format!("Invalid request body: {e}")).with_code(ErrorCode::InvalidRequest)
        })?,
    };
    let from_header = bearer_token(&headers).map(str::to_owned);
    let token = body.and_then(|b| b.token).or(from_header).unwrap_or_default();
    refuse_api_token(token.trim(), "/api/auth/refresh")?;
    let session = accounts(&state).refresh(token.trim(), state.clock.now()).await?;
    Ok(data(session))
}

/// Signs this session out on the server: its token is refused from now on (also by
/// `refresh`). The account's other sessions stay signed in.
#[utoipa::path(
    post,
    path = "/auth/logout",
    tag = "auth",
    responses(
        (status = 200, description = "Signed out; the token no longer works", body = Message),
    ),
)]
pub async fn logout(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    _signed_in: AuthUser,
) -> ApiResult<Json<Message>> {
    let token = bearer_token(&headers).unwrap_or_default();
    accounts(&state).logout(token, state.clock.now()).await?;
    Ok(message("Signed out"))
}

/// Signs out every session of the account, this one included: each device is back at the
/// sign-in page on its next request.
#[utoipa::path(
    post,
    path = "/auth/logout-all",
    tag = "auth",
    responses(
        (status = 200, description = "Every session of the account ended, this one too; sign in again", body = Message),
    ),
)]
pub async fn logout_all(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Json<Message>> {
    accounts(&state).logout_everywhere(user.id).await?;
    Ok(message("Signed out of all devices"))
}

/// The signed-in person's profile.
#[utoipa::path(
    get,
    path = "/auth/me",
    tag = "auth",
    responses(
        (status = 200, description = "The profile", body = Data<Profile>),
    ),
)]
pub async fn me(AuthUser(user): AuthUser) -> Json<Data<Profile>> {
    data(Profile::from(&user))
}

#[derive(Deserialize, ToSchema)]
pub struct ProfileUpdate {
    #[serde(rename = "firstName")]
    first_name: Option<String>,
    #[serde(rename = "lastName")]
    last_name: Option<String>,
}

/// Changes the names given; the others keep their values.
#[utoipa::path(
    put,
    path = "/auth/me",
    tag = "auth",
    request_body = ProfileUpdate,
    responses(
        (status = 200, description = "The updated profile", body = MessageData<Profile>),
        (status = 400, description = "A name is too long", body = ErrorBody),
        (status = 404, description = "The account is gone (`user_not_found`)", body = ErrorBody),
    ),
)]
pub async fn update_me(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<ProfileUpdate>,
) -> ApiResult<Json<MessageData<Profile>>> {
    let updated = accounts(&state)
        .update_profile(user, body.first_name, body.last_name, state.clock.now())
        .await?;
    Ok(message_data("Profile updated successfully", updated))
}

/// The account password, asked again before changes a stolen session must not make.
#[derive(Deserialize, ToSchema)]
pub struct PasswordBody {
    #[serde(default)]
    pub password: String,
}

/// Deletes the account and everything of it; the password is required.
#[utoipa::path(
    delete,
    path = "/auth/me",
    tag = "auth",
    request_body = PasswordBody,
    responses(
        (status = 200, description = "Deleted", body = Message),
        (status = 400, description = "Password missing or wrong (`password_incorrect`)", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords", body = ErrorBody),
    ),
)]
pub async fn delete_me(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PasswordBody>,
) -> ApiResult<Json<Message>> {
    accounts(&state)
        .delete_account(
            &limit_key(ip),
            user,
            body.password,
            state.backups_dir.to_path_buf(),
        )
        .await?;
    Ok(message("Account deleted"))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailVerified {
    /// Always true.
    success: bool,
    /// Always true.
    email_verified: bool,
    message: String,
}

/// Opened by the web app's verification page (never directly by a mail scanner: the link
/// in the e-mail points at that page).
#[utoipa::path(
    get,
    path = "/auth/verify-email/{token}",
    tag = "auth",
    security(()),
    params(("token" = String, Path, description = "The token of the e-mailed link")),
    responses(
        (status = 200, description = "The address is verified", body = EmailVerified),
        (status = 400, description = "Unknown or expired link (`invalid_token`; also `emailVerified: false`)", body = ErrorBody),
        (status = 429, description = "Too many unknown links from this address (`rate_limited`)", body = ErrorBody),
    ),
)]
pub async fn verify_email(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    Path(token): Path<String>,
) -> ApiResult<Json<EmailVerified>> {
    if accounts(&state)
        .verify_email(&limit_key(ip), &token, state.clock.now())
        .await?
    {
        Ok(Json(EmailVerified {
            success: true,
            email_verified: true,
            message: "Email verified successfully".into(),
        }))
    } else {
        Err(ApiError::coded(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidToken,
            "Invalid or expired verification link",
        )
        .with_field("emailVerified", false))
    }
}

#[derive(Deserialize, ToSchema)]
pub struct ResendBody {
    /// An e-mail address: at most 254 bytes, no spaces, with a dot in its domain.
    #[schema(required = true, format = Email, min_length = 3, max_length = 254)]
    #[serde(default)]
    email: String,
}

/// Sends a new verification link. The answer is the same whether or not the address has an
/// account waiting, so it reveals nothing.
#[utoipa::path(
    post,
    path = "/auth/resend-verification",
    tag = "auth",
    security(()),
    request_body = ResendBody,
    responses(
        (status = 200, description = "Sent if an account is waiting", body = Message),
        (status = 400, description = "Invalid address, or no e-mail on this server (`email_not_configured`)", body = ErrorBody),
        (status = 429, description = "Too many links asked for", body = ErrorBody),
    ),
)]
pub async fn resend_verification(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<ResendBody>,
) -> ApiResult<Json<Message>> {
    accounts(&state)
        .resend_verification(&limit_key(ip), &body.email, state.clock.now())
        .await?;
    Ok(message(
        "If an account with that address is waiting for verification, a new link has been sent.",
    ))
}

/// Whether people can make an account here now, for the sign-in and registration pages
/// (no session needed).
#[utoipa::path(
    get,
    path = "/auth/registration",
    tag = "auth",
    security(()),
    responses(
        (status = 200, description = "The sign-up policy and whether it is open now", body = Data<Registration>),
    ),
)]
pub async fn registration(State(state): State<AppState>) -> ApiResult<Json<Data<Registration>>> {
    Ok(data(accounts(&state).registration().await?))
}

#[derive(Deserialize, ToSchema)]
pub struct ForgotBody {
    /// An e-mail address: at most 254 bytes, no spaces, with a dot in its domain.
    #[schema(required = true, format = Email, min_length = 3, max_length = 254)]
    #[serde(default)]
    email: String,
}

/// What asking for a password link tells: the same for every address.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetAsked {
    /// Whether this server sends e-mail at all (a setting of the server, not of the address):
    /// without it no link can come, and the administrator resets passwords
    /// (`pillbox reset-password`).
    email_available: bool,
}

/// Asks for a one-time link to choose a new password (valid 1 hour), mailed when the address
/// has an account and this server sends e-mail. The answer is the same whether or not the
/// address has an account, so it reveals nothing.
#[utoipa::path(
    post,
    path = "/auth/forgot-password",
    tag = "auth",
    security(()),
    request_body = ForgotBody,
    responses(
        (status = 200, description = "Sent if the address has an account", body = MessageData<ResetAsked>),
        (status = 400, description = "Invalid address (`email_required`, `email_invalid`)", body = ErrorBody),
        (status = 429, description = "Too many links asked for (`rate_limited`)", body = ErrorBody),
    ),
)]
pub async fn forgot_password(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<ForgotBody>,
) -> ApiResult<Json<MessageData<ResetAsked>>> {
    let email_available = accounts(&state)
        .forgot_password(&limit_key(ip), &body.email, state.clock.now())
        .await?;
    Ok(message_data(
        "If an account with that address exists, a link to choose a new password has been sent.",
        ResetAsked { email_available },
    ))
}

#[derive(Deserialize, ToSchema)]
pub struct ResetBody {
    /// The token of the e-mailed link.
    #[schema(required = true, min_length = 1)]
    #[serde(default)]
    token: String,
    /// The new password: at least 6 characters, at most 1024 bytes.
    #[schema(required = true, min_length = 6, max_length = 1024)]
    #[serde(default)]
    password: String,
}

/// Sets a new password with the e-mailed link's token: the link is used up and every session
/// of the account is signed out; sign in with the new password afterwards.
#[utoipa::path(
    post,
    path = "/auth/reset-password",
    tag = "auth",
    security(()),
    request_body = ResetBody,
    responses(
        (status = 200, description = "Changed; every session was signed out", body = Message),
        (status = 400, description = "The link is unknown, expired or used (`reset_link_invalid`), or the password breaks the rules (`password_too_short`, `password_too_long`)", body = ErrorBody),
        (status = 429, description = "Too many tries (`rate_limited`, with Retry-After)", body = ErrorBody),
    ),
)]
pub async fn reset_password(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<ResetBody>,
) -> ApiResult<Json<Message>> {
    accounts(&state)
        .reset_password(&limit_key(ip), &body.token, body.password, state.clock.now())
        .await?;
    Ok(message("Password changed. Sign in with your new password."))
}

#[derive(Deserialize, ToSchema)]
pub struct PasswordChange {
    #[schema(required = true, min_length = 1, max_length = 1024)]
    #[serde(rename = "currentPassword", default)]
    current_password: String,
    /// At least 6 characters, at most 1024 bytes.
    #[schema(required = true, min_length = 6, max_length = 1024)]
    #[serde(rename = "newPassword", default)]
    new_password: String,
}

/// Changes the password (the current one is required) and signs out every other session:
/// the answer carries the new token for this one.
#[utoipa::path(
    post,
    path = "/auth/change-password",
    tag = "auth",
    request_body = PasswordChange,
    responses(
        (status = 200, description = "Changed; the fresh session", body = MessageData<SignedIn>),
        (status = 400, description = "Wrong current password (`password_incorrect`) or a new one too short", body = ErrorBody),
        (status = 404, description = "The account is gone (`user_not_found`)", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords", body = ErrorBody),
    ),
)]
pub async fn change_password(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PasswordChange>,
) -> ApiResult<Json<MessageData<SignedIn>>> {
    let session = accounts(&state)
        .change_password(
            &limit_key(ip),
            user,
            body.current_password,
            body.new_password,
            state.clock.now(),
        )
        .await?;
    Ok(message_data("Password changed successfully", session))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(register))
        .routes(routes!(login))
        .routes(routes!(refresh))
        .routes(routes!(logout))
        .routes(routes!(logout_all))
        .routes(routes!(me, update_me, delete_me))
        .routes(routes!(verify_email))
        .routes(routes!(resend_verification))
        .routes(routes!(change_password))
        .routes(routes!(registration))
        .routes(routes!(forgot_password))
        .routes(routes!(reset_password))
}

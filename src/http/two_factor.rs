//! `/api/auth/2fa/*`: the sign-in code step and two-factor management.
//!
//! Changing two-factor settings signs out every other session (token version bump); those
//! answers carry a fresh `token` for the session that made the change. Turning two-factor on,
//! making new backup codes and turning it all off also need the account password, so a
//! stolen session cannot take over the second factor ("Please enter your password",
//! "Password is incorrect").

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{Message, MessageData, message, message_data};
use super::error::{ApiError, ApiResult, Data, ErrorBody, data};
use super::extract::ApiJson;
use super::routes;
use super::session::{AuthUser, accounts};
use crate::security::client_ip::{ClientIp, limit_key};
use crate::services::accounts::{
    BackupCodes, Disabled, Enabled, Preference, SetupStep, SignedIn, TotpSetup, TwoFactorMethod,
    TwoFactorStatus,
};

#[derive(Deserialize, ToSchema)]
pub struct RequirementsBody {
    #[schema(required = true, format = Email, min_length = 3, max_length = 254)]
    #[serde(default)]
    email: String,
    #[schema(required = true, min_length = 1, max_length = 1024)]
    #[serde(default)]
    password: String,
}

/// Whether a code step follows the password.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginRequirements {
    /// Always true.
    success: bool,
    #[serde(rename = "requires2FA")]
    requires_2fa: bool,
    available_methods: Vec<TwoFactorMethod>,
    preferred_method: Option<TwoFactorMethod>,
}

/// Says whether a code step follows. Two-factor details are given only with the right
/// password; every other case (no password, wrong password, unknown address, no 2FA) gets
/// the same answer, so the call reveals nothing about which addresses have accounts. A wrong
/// password spends the sign-in budget like one sent to `login` (the same one sent to both
/// counts once).
#[utoipa::path(
    post,
    path = "/auth/2fa/check-login-requirements",
    tag = "two-factor",
    security(()),
    request_body = RequirementsBody,
    responses(
        (status = 200, description = "What sign-in needs", body = LoginRequirements),
        (status = 400, description = "The body cannot be read (`invalid_request`)", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords: the sign-in budget is spent (`rate_limited`, with Retry-After)", body = ErrorBody),
    ),
)]
pub async fn check_login_requirements(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<RequirementsBody>,
) -> ApiResult<Json<LoginRequirements>> {
    let needs = accounts(&state)
        .login_requirements(&limit_key(ip), &body.email, body.password)
        .await?;
    Ok(Json(LoginRequirements {
        success: true,
        requires_2fa: !needs.methods.is_empty(),
        available_methods: needs.methods,
        preferred_method: needs.preferred,
    }))
}

#[derive(Deserialize, ToSchema)]
pub struct GenerateBody {
    #[schema(required = true, format = Email, min_length = 3, max_length = 254)]
    #[serde(default)]
    email: String,
    #[schema(required = true, min_length = 1, max_length = 1024)]
    #[serde(default)]
    password: String,
    /// `email` or `totp`.
    #[schema(required = true, value_type = TwoFactorMethod)]
    #[serde(default)]
    method: String,
}

/// Sends an e-mail sign-in code (after the password step). For the authenticator method
/// there is nothing to send.
#[utoipa::path(
    post,
    path = "/auth/2fa/generate-otp",
    tag = "two-factor",
    security(()),
    request_body = GenerateBody,
    responses(
        (status = 200, description = "Sent, or nothing to send", body = Message),
        (status = 400, description = "Unknown method, or one not enabled (`method_not_enabled`)", body = ErrorBody),
        (status = 401, description = "Wrong password (`invalid_credentials`)", body = ErrorBody),
        (status = 429, description = "Too many tries or codes", body = ErrorBody),
        (status = 503, description = "The e-mail could not be sent (`code_not_sent`)", body = ErrorBody),
    ),
)]
pub async fn generate_otp(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<GenerateBody>,
) -> ApiResult<Json<Message>> {
    let said = accounts(&state)
        .send_sign_in_code(
            &limit_key(ip),
            &body.email,
            body.password,
            &body.method,
            state.clock.now(),
        )
        .await?;
    Ok(message(said))
}

#[derive(Deserialize, ToSchema)]
pub struct VerifyBody {
    #[schema(required = true, format = Email, min_length = 3, max_length = 254)]
    #[serde(default)]
    email: String,
    #[schema(required = true, min_length = 1, max_length = 1024)]
    #[serde(default)]
    password: String,
    #[serde(default)]
    otp: String,
}

/// The code step as its own call: the password is required again, a code alone is not enough.
#[utoipa::path(
    post,
    path = "/auth/2fa/verify-otp",
    tag = "two-factor",
    security(()),
    request_body = VerifyBody,
    responses(
        (status = 200, description = "Signed in", body = Data<SignedIn>),
        (status = 400, description = "No code, or no e-mail or password", body = ErrorBody),
        (status = 401, description = "`invalid_credentials`, `two_factor_required` or `invalid_code`", body = ErrorBody),
        (status = 403, description = "The address is not verified (`email_not_verified`)", body = ErrorBody),
        (status = 429, description = "Too many failed attempts", body = ErrorBody),
    ),
)]
pub async fn verify_otp(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<VerifyBody>,
) -> ApiResult<Json<Data<SignedIn>>> {
    let session = accounts(&state)
        .verify_code(
            &limit_key(ip),
            &body.email,
            body.password,
            &body.otp,
            state.clock.now(),
        )
        .await?;
    Ok(data(session))
}

/// The person's two-factor settings.
#[utoipa::path(
    get,
    path = "/auth/2fa/status",
    tag = "two-factor",
    responses(
        (status = 200, description = "Methods, preference and backup codes left", body = Data<TwoFactorStatus>),
    ),
)]
pub async fn status(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<TwoFactorStatus>>> {
    Ok(data(accounts(&state).two_factor_status(user.id).await?))
}

#[derive(Deserialize, ToSchema)]
pub struct SetupBody {
    /// `email` or `totp` (passkeys are added in their own card).
    #[schema(required = true, value_type = SetupMethod)]
    #[serde(default)]
    method: String,
    /// The account's password.
    #[schema(required = true, min_length = 1, max_length = 1024)]
    #[serde(default)]
    password: String,
}

/// A method `setup` turns on (the document's name for what `method` takes).
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum SetupMethod {
    Email,
    Totp,
}

/// What `setup` answers: e-mail codes are on at once (with backup codes and a fresh token);
/// the authenticator app answers its secret and QR code for `complete-totp-setup`.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum SetupAnswer {
    EmailEnabled(MessageData<Enabled>),
    TotpStarted(Data<TotpSetup>),
}

fn email_enabled(enabled: Enabled) -> Json<MessageData<Enabled>> {
    message_data("Email two-factor authentication enabled", enabled)
}

/// Turns a method on (the password is required).
#[utoipa::path(
    post,
    path = "/auth/2fa/setup",
    tag = "two-factor",
    request_body = SetupBody,
    responses(
        (status = 200, description = "Enabled, or the authenticator set-up started", body = SetupAnswer),
        (status = 400, description = "Unknown method, wrong password (`password_incorrect`), no e-mail on this server (`email_not_configured`)", body = ErrorBody),
        (status = 409, description = "Already enabled (`method_already_enabled`)", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords", body = ErrorBody),
    ),
)]
pub async fn setup(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<SetupBody>,
) -> ApiResult<Json<SetupAnswer>> {
    let step = accounts(&state)
        .setup(
            &limit_key(ip),
            &user,
            &body.method,
            body.password,
            state.clock.now(),
        )
        .await?;
    Ok(Json(match step {
        SetupStep::EmailEnabled(enabled) => SetupAnswer::EmailEnabled(email_enabled(enabled).0),
        SetupStep::TotpStarted(setup) => SetupAnswer::TotpStarted(data(setup).0),
    }))
}

/// The account password, asked again before changes a stolen session must not make.
#[derive(Deserialize, ToSchema)]
pub struct ConfirmPassword {
    /// The account's password.
    #[schema(required = true, min_length = 1, max_length = 1024)]
    #[serde(default)]
    password: String,
}

/// Turns e-mail codes on (the password is required).
#[utoipa::path(
    post,
    path = "/auth/2fa/setup-email",
    tag = "two-factor",
    request_body = ConfirmPassword,
    responses(
        (status = 200, description = "Enabled: backup codes and a fresh token", body = MessageData<Enabled>),
        (status = 400, description = "Wrong password (`password_incorrect`), no e-mail on this server (`email_not_configured`)", body = ErrorBody),
        (status = 409, description = "Already enabled (`method_already_enabled`)", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords", body = ErrorBody),
    ),
)]
pub async fn setup_email(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<ConfirmPassword>,
) -> ApiResult<Json<MessageData<Enabled>>> {
    let accounts = accounts(&state);
    accounts
        .confirm_password(&limit_key(ip), &user, body.password)
        .await?;
    Ok(email_enabled(
        accounts.enable_email(&user, state.clock.now()).await?,
    ))
}

/// Starts the authenticator app set-up (the password is required).
#[utoipa::path(
    post,
    path = "/auth/2fa/setup-totp",
    tag = "two-factor",
    request_body = ConfirmPassword,
    responses(
        (status = 200, description = "The secret and its QR code", body = Data<TotpSetup>),
        (status = 400, description = "Wrong password (`password_incorrect`)", body = ErrorBody),
        (status = 409, description = "Already enabled (`method_already_enabled`)", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords", body = ErrorBody),
    ),
)]
pub async fn setup_totp(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<ConfirmPassword>,
) -> ApiResult<Json<Data<TotpSetup>>> {
    let accounts = accounts(&state);
    accounts
        .confirm_password(&limit_key(ip), &user, body.password)
        .await?;
    Ok(data(accounts.start_totp(&user).await?))
}

#[derive(Deserialize, ToSchema)]
pub struct OtpBody {
    /// A code from the authenticator app: six digits.
    #[schema(required = true, pattern = "^\\s*[0-9]{6}\\s*$")]
    #[serde(default)]
    otp: String,
}

/// Turns the authenticator app on with a first code from it.
#[utoipa::path(
    post,
    path = "/auth/2fa/complete-totp-setup",
    tag = "two-factor",
    request_body = OtpBody,
    responses(
        (status = 200, description = "Enabled: backup codes and a fresh token", body = MessageData<Enabled>),
        (status = 400, description = "`invalid_code` or `totp_setup_not_started`", body = ErrorBody),
        (status = 429, description = "Too many wrong codes", body = ErrorBody),
    ),
)]
pub async fn complete_totp_setup(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<OtpBody>,
) -> ApiResult<Json<MessageData<Enabled>>> {
    let enabled = accounts(&state)
        .complete_totp(&user, &body.otp, state.clock.now())
        .await?;
    Ok(message_data(
        "Authenticator app two-factor authentication enabled",
        enabled,
    ))
}

#[derive(Deserialize, ToSchema)]
pub struct DisableBody {
    /// `email` or `totp`; all methods when left out (`/disable` only).
    #[schema(value_type = Option<SetupMethod>)]
    #[serde(default)]
    method: Option<String>,
    /// One of the account's unused backup codes.
    #[schema(required = true, min_length = 1)]
    #[serde(rename = "backupCode", default)]
    backup_code: String,
    /// Required by `/disable`.
    #[schema(min_length = 1, max_length = 1024)]
    password: Option<String>,
}

fn two_factor_updated(disabled: Disabled) -> Json<MessageData<Disabled>> {
    message_data("Two-factor authentication updated", disabled)
}

/// Turns one method off; a backup code is required and used up.
#[utoipa::path(
    post,
    path = "/auth/2fa/disable-method",
    tag = "two-factor",
    request_body = DisableBody,
    responses(
        (status = 200, description = "Updated: the settings and a fresh token", body = MessageData<Disabled>),
        (status = 400, description = "`method_not_enabled`, `invalid_backup_code`, or no method or code", body = ErrorBody),
        (status = 429, description = "Too many wrong codes", body = ErrorBody),
    ),
)]
pub async fn disable_method(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<DisableBody>,
) -> ApiResult<Json<MessageData<Disabled>>> {
    let Some(method) = body.method.filter(|m| !m.is_empty()) else {
        return Err(ApiError::bad_request("Method must be email or totp"));
    };
    let disabled = accounts(&state)
        .disable(&user, Some(&method), &body.backup_code, state.clock.now())
        .await?;
    Ok(two_factor_updated(disabled))
}

/// Turns two-factor off (or one method, when named): the password and a backup code are
/// both required.
#[utoipa::path(
    post,
    path = "/auth/2fa/disable",
    tag = "two-factor",
    request_body = DisableBody,
    responses(
        (status = 200, description = "Updated: the settings and a fresh token", body = MessageData<Disabled>),
        (status = 400, description = "`password_incorrect`, `two_factor_not_enabled`, `method_not_enabled`, `invalid_backup_code`", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords or codes", body = ErrorBody),
    ),
)]
pub async fn disable_all(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<DisableBody>,
) -> ApiResult<Json<MessageData<Disabled>>> {
    let method = body.method.filter(|m| !m.is_empty());
    let disabled = accounts(&state)
        .disable_all(
            &limit_key(ip),
            &user,
            method.as_deref(),
            &body.backup_code,
            body.password.unwrap_or_default(),
            state.clock.now(),
        )
        .await?;
    Ok(two_factor_updated(disabled))
}

#[derive(Deserialize, ToSchema)]
pub struct PreferenceBody {
    /// `email` or `totp`: an enabled method.
    #[schema(required = true, value_type = TwoFactorMethod)]
    #[serde(default)]
    preference: String,
}

/// The method offered first at sign-in.
#[utoipa::path(
    post,
    path = "/auth/2fa/set-preference",
    tag = "two-factor",
    request_body = PreferenceBody,
    responses(
        (status = 200, description = "The preference", body = Data<Preference>),
        (status = 400, description = "Not an enabled method (`method_not_enabled`)", body = ErrorBody),
    ),
)]
pub async fn set_preference(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PreferenceBody>,
) -> ApiResult<Json<Data<Preference>>> {
    Ok(data(
        accounts(&state).set_preference(user.id, body.preference).await?,
    ))
}

/// A fresh set of backup codes; the old ones stop working.
#[utoipa::path(
    post,
    path = "/auth/2fa/backup-codes",
    tag = "two-factor",
    request_body = ConfirmPassword,
    responses(
        (status = 200, description = "The new codes, shown once", body = Data<BackupCodes>),
        (status = 400, description = "`password_incorrect` or `two_factor_not_enabled`", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords", body = ErrorBody),
    ),
)]
pub async fn regenerate_backup_codes(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<ConfirmPassword>,
) -> ApiResult<Json<Data<BackupCodes>>> {
    Ok(data(
        accounts(&state)
            .regenerate_backup_codes(&limit_key(ip), &user, body.password)
            .await?,
    ))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(check_login_requirements))
        .routes(routes!(generate_otp))
        .routes(routes!(verify_otp))
        .routes(routes!(status))
        .routes(routes!(setup))
        .routes(routes!(setup_email))
        .routes(routes!(setup_totp))
        .routes(routes!(complete_totp_setup))
        .routes(routes!(disable_method))
        .routes(routes!(disable_all))
        .routes(routes!(set_preference))
        .routes(routes!(regenerate_backup_codes))
}

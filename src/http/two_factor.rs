//! `/api/auth/2fa/*`: the sign-in code step and two-factor management.
//!
//! Changing two-factor settings signs out every other session (token version bump); those
//! answers carry a fresh `token` for the session that made the change. Turning two-factor on,
//! making new backup codes and turning it all off also need the account password, so a
//! stolen session cannot take over the second factor ("Please enter your password",
//! "Password is incorrect").

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::auth::{PasswordBody, authenticate, confirm_password, limited, password_step, signed_in};
use super::error::{ApiError, ApiResult, ok};
use super::extract::ApiJson;
use super::session::{AuthUser, issue_token};
use crate::accounts;
use crate::security::client_ip::ClientIp;
use crate::security::{codes, totp};
use crate::store::users::{self, TwoFactor, User};
use axum::routing;
use utoipa_axum::router::OpenApiRouter;

#[derive(Deserialize)]
pub struct RequirementsBody {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
}

/// Says whether a code step follows. Two-factor details are given only with the right
/// password; every other case (no password, wrong password, unknown address, no 2FA) gets
/// the same answer, so the call reveals nothing about which addresses have accounts.
pub async fn check_login_requirements(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<RequirementsBody>,
) -> ApiResult<Json<Value>> {
    let neutral = Json(
        json!({ "success": true, "requires2FA": false, "availableMethods": [], "preferredMethod": null }),
    );
    if body.email.trim().is_empty() || body.password.is_empty() {
        return Ok(neutral);
    }
    let limits = &state.limits.requirement_checks;
    match password_step(&state, limits, &ip.to_string(), &body.email, body.password).await {
        Ok((_, tf)) if tf.enabled() => Ok(Json(json!({
            "success": true,
            "requires2FA": true,
            "availableMethods": tf.methods(),
            "preferredMethod": tf.preference(),
        }))),
        Ok(_) => Ok(neutral),
        Err(e) if e.status() == StatusCode::TOO_MANY_REQUESTS => Err(e),
        Err(_) => Ok(neutral),
    }
}

#[derive(Deserialize)]
pub struct GenerateBody {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    method: String,
}

/// Sends an e-mail sign-in code (after the password step). For the authenticator method
/// there is nothing to send.
pub async fn generate_otp(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<GenerateBody>,
) -> ApiResult<Json<Value>> {
    let client = ip.to_string();
    let (user, tf) =
        password_step(&state, &state.limits.sign_in, &client, &body.email, body.password).await?;
    match body.method.as_str() {
        "totp" if tf.totp_secret.is_some() => Ok(Json(
            json!({ "success": true, "message": "Enter the code from your authenticator app" }),
        )),
        "email" if tf.email_enabled => {
            limited(state.limits.codes_per_account.hit(&format!("user:{}", user.id)))?;
            limited(state.limits.codes_per_client.hit(&client))?;
            send_email_code(&state, &user).await?;
            Ok(Json(
                json!({ "success": true, "message": "A sign-in code has been sent to your email" }),
            ))
        }
        "email" | "totp" => Err(ApiError::bad_request("This sign-in method is not enabled")),
        _ => Err(ApiError::bad_request("Method must be email or totp")),
    }
}

async fn send_email_code(state: &AppState, user: &User) -> ApiResult<()> {
    let key = state.secrets.jwt_key.clone();
    let user_id = user.id;
    let code = state
        .db
        .write(move |conn| accounts::new_email_code(conn, &key, user_id).map_err(ApiError::from))
        .await?;
    state
        .mailer
        .send(&user.email, accounts::code_email(&code))
        .await
        .map_err(|e| {
            tracing::error!(user = user.id, "sign-in code not sent: {e}");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "The code could not be sent by email. Please try again later.",
            )
        })
}

#[derive(Deserialize)]
pub struct VerifyBody {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    otp: String,
}

/// The code step as its own call: the password is required again, a code alone is not enough.
pub async fn verify_otp(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<VerifyBody>,
) -> ApiResult<Json<Value>> {
    if body.otp.trim().is_empty() {
        return Err(ApiError::bad_request("Please enter the verification code"));
    }
    let user = authenticate(
        &state,
        &ip.to_string(),
        &body.email,
        body.password,
        Some(&body.otp),
    )
    .await?;
    signed_in(&state, &user)
}

pub async fn status(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Json<Value>> {
    let (tf, remaining) = state
        .db
        .read(move |conn| {
            Ok::<_, ApiError>((
                users::two_factor(conn, user.id)?,
                users::unused_backup_codes(conn, user.id)?,
            ))
        })
        .await?;
    Ok(ok(json!({
        "methods": tf.methods(),
        "preference": tf.preference(),
        "backupCodesRemaining": remaining,
        "emailAvailable": state.mailer.is_configured(),
    })))
}

#[derive(Deserialize)]
pub struct SetupBody {
    #[serde(default)]
    method: String,
    #[serde(default)]
    password: String,
}

pub async fn setup(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<SetupBody>,
) -> ApiResult<Json<Value>> {
    if body.method != "email" && body.method != "totp" {
        return Err(ApiError::bad_request("Method must be email or totp"));
    }
    confirm_password(&state, &ip.to_string(), &user, body.password).await?;
    match body.method.as_str() {
        "email" => enable_email(&state, &user).await,
        _ => start_totp(&state, &user).await,
    }
}

/// Applies a change to the user's two-factor settings in one transaction, makes a fresh set
/// of backup codes when asked, and signs out other sessions. Returns the new backup codes
/// (if any) and the fresh token.
async fn change_two_factor<F>(
    state: &AppState,
    user: &User,
    new_codes: bool,
    change: F,
) -> ApiResult<(Option<Vec<String>>, String, TwoFactor)>
where
    F: FnOnce(&rusqlite::Connection, &mut TwoFactor) -> ApiResult<()> + Send + 'static,
{
    let key = state.secrets.jwt_key.clone();
    let user_id = user.id;
    let (codes, version, tf) = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let mut tf = users::two_factor(&tx, user_id)?;
            change(&tx, &mut tf)?;
            if tf.preference() != tf.preferred_method.as_deref() {
                tf.preferred_method = tf.preference().map(str::to_owned);
            }
            users::save_two_factor(&tx, user_id, &tf)?;
            let codes = if !tf.enabled() {
                users::replace_backup_codes(&tx, user_id, &[])?;
                None
            } else if new_codes {
                Some(accounts::new_backup_codes(&tx, &key, user_id)?)
            } else {
                None
            };
            let version = users::bump_token_version(&tx, user_id)?;
            tx.commit()?;
            Ok::<_, ApiError>((codes, version, tf))
        })
        .await?;
    let token = issue_token(state, user_id, version)?;
    Ok((codes, token, tf))
}

pub async fn setup_email(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PasswordBody>,
) -> ApiResult<Json<Value>> {
    confirm_password(&state, &ip.to_string(), &user, body.password).await?;
    enable_email(&state, &user).await
}

async fn enable_email(state: &AppState, user: &User) -> ApiResult<Json<Value>> {
    if !state.mailer.is_configured() {
        return Err(ApiError::bad_request("Email is not configured on this server"));
    }
    let (codes, token, tf) = change_two_factor(state, user, true, |_, tf| {
        if tf.email_enabled {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "Email two-factor authentication is already enabled",
            ));
        }
        tf.email_enabled = true;
        Ok(())
    })
    .await?;
    Ok(Json(json!({
        "success": true,
        "message": "Email two-factor authentication enabled",
        "data": { "backupCodes": codes, "token": token, "methods": tf.methods() },
    })))
}

pub async fn setup_totp(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PasswordBody>,
) -> ApiResult<Json<Value>> {
    confirm_password(&state, &ip.to_string(), &user, body.password).await?;
    start_totp(&state, &user).await
}

async fn start_totp(state: &AppState, user: &User) -> ApiResult<Json<Value>> {
    let user_id = user.id;
    let secret = totp::new_secret();
    let qr = totp::qr_data_url(&secret, &user.email)
        .ok_or_else(|| ApiError::internal("cannot draw the TOTP QR code"))?;
    let pending = secret.clone();
    state
        .db
        .write(move |conn| {
            let mut tf = users::two_factor(conn, user_id)?;
            if tf.totp_secret.is_some() {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "Authenticator app two-factor authentication is already enabled",
                ));
            }
            tf.totp_pending_secret = Some(pending);
            users::save_two_factor(conn, user_id, &tf)?;
            Ok(())
        })
        .await?;
    Ok(ok(json!({ "secret": secret, "qrCodeUrl": qr })))
}

#[derive(Deserialize)]
pub struct OtpBody {
    #[serde(default)]
    otp: String,
}

pub async fn complete_totp_setup(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<OtpBody>,
) -> ApiResult<Json<Value>> {
    // Counted before the check, forgiven unless the code was wrong.
    let account = format!("user:{}", user.id);
    limited(state.limits.sign_in.per_account.hit(&account))?;
    let otp = body.otp.trim().to_owned();
    let result = change_two_factor(&state, &user, true, move |_, tf| {
        let pending = tf
            .totp_pending_secret
            .clone()
            .ok_or_else(|| ApiError::bad_request("Start the authenticator app setup first"))?;
        let now = u64::try_from(chrono::Utc::now().timestamp()).unwrap_or_default();
        let step = totp::verify(&pending, &otp, now, 0)
            .ok_or_else(|| ApiError::bad_request("Invalid verification code"))?;
        tf.totp_secret = Some(pending);
        tf.totp_pending_secret = None;
        tf.totp_last_step = step;
        Ok(())
    })
    .await;
    if !matches!(&result, Err(e) if e.message() == "Invalid verification code") {
        state.limits.sign_in.per_account.forgive(&account);
    }
    let (codes, token, tf) = result?;
    Ok(Json(json!({
        "success": true,
        "message": "Authenticator app two-factor authentication enabled",
        "data": { "backupCodes": codes, "token": token, "methods": tf.methods() },
    })))
}

#[derive(Deserialize)]
pub struct DisableBody {
    #[serde(default)]
    method: Option<String>,
    #[serde(rename = "backupCode", default)]
    backup_code: String,
    password: Option<String>,
}

/// Turns off one method (`disable-method`) or all of them (`disable`); a valid backup code
/// is required either way, and is used up.
async fn disable(
    state: AppState,
    user: User,
    method: Option<String>,
    backup_code: String,
) -> ApiResult<Json<Value>> {
    let backup_code = codes::normalize_backup_code(backup_code.trim());
    if backup_code.is_empty() {
        return Err(ApiError::bad_request("Please enter a backup code"));
    }
    if let Some(m) = method.as_deref()
        && m != "email"
        && m != "totp"
    {
        return Err(ApiError::bad_request("Method must be email or totp"));
    }
    let account = format!("user:{}", user.id);
    limited(state.limits.sign_in.per_account.hit(&account))?;
    let key = state.secrets.jwt_key.clone();
    let user_id = user.id;
    let result = change_two_factor(&state, &user, false, move |conn, tf| {
        match method.as_deref() {
            Some(m) if !tf.methods().contains(&m) => {
                return Err(ApiError::bad_request("This method is not enabled"));
            }
            None if !tf.enabled() => {
                return Err(ApiError::bad_request("Two-factor authentication is not enabled"));
            }
            _ => {}
        }
        if !accounts::use_backup_code(conn, &key, user_id, &backup_code)? {
            return Err(ApiError::bad_request("Invalid backup code"));
        }
        if matches!(method.as_deref(), None | Some("email")) {
            tf.email_enabled = false;
        }
        if matches!(method.as_deref(), None | Some("totp")) {
            tf.totp_secret = None;
            tf.totp_pending_secret = None;
        }
        Ok(())
    })
    .await;
    if !matches!(&result, Err(e) if e.message() == "Invalid backup code") {
        state.limits.sign_in.per_account.forgive(&account);
    }
    let (_, token, tf) = result?;
    Ok(Json(json!({
        "success": true,
        "message": "Two-factor authentication updated",
        "data": { "token": token, "methods": tf.methods(), "preference": tf.preference() },
    })))
}

pub async fn disable_method(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<DisableBody>,
) -> ApiResult<Json<Value>> {
    let Some(method) = body.method.filter(|m| !m.is_empty()) else {
        return Err(ApiError::bad_request("Method must be email or totp"));
    };
    disable(state, user, Some(method), body.backup_code).await
}

pub async fn disable_all(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<DisableBody>,
) -> ApiResult<Json<Value>> {
    if body.backup_code.trim().is_empty() {
        return Err(ApiError::bad_request("Please enter a backup code"));
    }
    confirm_password(&state, &ip.to_string(), &user, body.password.unwrap_or_default()).await?;
    disable(
        state,
        user,
        body.method.filter(|m| !m.is_empty()),
        body.backup_code,
    )
    .await
}

#[derive(Deserialize)]
pub struct PreferenceBody {
    #[serde(default)]
    preference: String,
}

pub async fn set_preference(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PreferenceBody>,
) -> ApiResult<Json<Value>> {
    let preference = body.preference;
    let tf = state
        .db
        .write(move |conn| {
            let mut tf = users::two_factor(conn, user.id)?;
            if !tf.methods().contains(&preference.as_str()) {
                return Err(ApiError::bad_request("That method is not enabled"));
            }
            tf.preferred_method = Some(preference);
            users::save_two_factor(conn, user.id, &tf)?;
            Ok(tf)
        })
        .await?;
    Ok(ok(
        json!({ "preference": tf.preference(), "methods": tf.methods() }),
    ))
}

/// A fresh set of backup codes; the old ones stop working.
pub async fn regenerate_backup_codes(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PasswordBody>,
) -> ApiResult<Json<Value>> {
    confirm_password(&state, &ip.to_string(), &user, body.password).await?;
    let key = state.secrets.jwt_key.clone();
    let codes = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            if !users::two_factor(&tx, user.id)?.enabled() {
                return Err(ApiError::bad_request("Enable two-factor authentication first"));
            }
            let codes = accounts::new_backup_codes(&tx, &key, user.id)?;
            tx.commit()?;
            Ok(codes)
        })
        .await?;
    Ok(ok(json!({ "backupCodes": codes })))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .route(
            "/auth/2fa/check-login-requirements",
            routing::post(check_login_requirements),
        )
        .route("/auth/2fa/generate-otp", routing::post(generate_otp))
        .route("/auth/2fa/verify-otp", routing::post(verify_otp))
        .route("/auth/2fa/status", routing::get(status))
        .route("/auth/2fa/setup", routing::post(setup))
        .route("/auth/2fa/setup-email", routing::post(setup_email))
        .route("/auth/2fa/setup-totp", routing::post(setup_totp))
        .route(
            "/auth/2fa/complete-totp-setup",
            routing::post(complete_totp_setup),
        )
        .route("/auth/2fa/disable-method", routing::post(disable_method))
        .route("/auth/2fa/disable", routing::post(disable_all))
        .route("/auth/2fa/set-preference", routing::post(set_preference))
        .route("/auth/2fa/backup-codes", routing::post(regenerate_backup_codes))
}

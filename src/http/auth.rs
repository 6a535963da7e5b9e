//! `/api/auth/*`: registration, sign-in, tokens, profile, e-mail verification, password.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::{ApiError, ApiResult, ok};
use super::extract::ApiJson;
use super::session::{AuthUser, bearer_token, issue_token, user_for_token};
use crate::accounts::{self, FailureLimits, MAX_NAME_LENGTH};
use crate::clock;
use crate::config::Signups;
use crate::security::client_ip::ClientIp;
use crate::security::codes;
use crate::security::rate_limit::Limited;
use crate::services::user_backups;
use crate::store::users::{self, TwoFactor, User};
use axum::routing;
use utoipa_axum::router::OpenApiRouter;

#[derive(Deserialize)]
pub struct Credentials {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    code: Option<String>,
    otp: Option<String>,
}

pub async fn register(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<Credentials>,
) -> ApiResult<Response> {
    let email = accounts::validate_email(&body.email).map_err(ApiError::bad_request)?;
    accounts::validate_new_password(&body.password).map_err(ApiError::bad_request)?;
    limited(state.limits.registrations_per_client.hit(&ip.to_string()))?;
    let hash = accounts::hash_password(body.password)
        .await
        .map_err(ApiError::internal)?;
    let needs_verification = state.mailer.is_configured();
    let signups = state.settings.signups;
    let (user, verification) = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let open = match signups {
                Signups::Open => true,
                Signups::Closed => false,
                Signups::FirstUser => users::count(&tx)? == 0,
            };
            if !open {
                return Err(ApiError::new(StatusCode::FORBIDDEN, "Registration is closed"));
            }
            let user = users::insert(&tx, &email, &hash, !needs_verification, &clock::now_stamp())?
                .ok_or_else(|| {
                    ApiError::new(StatusCode::CONFLICT, "An account with this email already exists")
                })?;
            let verification = match needs_verification {
                true => Some(accounts::new_verification(&tx, user.id)?),
                false => None,
            };
            tx.commit()?;
            Ok((user, verification))
        })
        .await?;

    let Some(token) = verification else {
        let session = issue_token(&state, user.id, user.token_version)?;
        let body = ok(json!({ "user": user.public(), "token": session }));
        return Ok((StatusCode::CREATED, body).into_response());
    };
    let sent = state
        .mailer
        .send(
            &user.email,
            accounts::verification_email(&state.settings.link_base(), &token),
        )
        .await
        .inspect_err(|e| tracing::error!(user = user.id, "verification e-mail not sent: {e}"))
        .is_ok();
    let message = if sent {
        "Account created. Check your email to verify your address."
    } else {
        "Account created, but the verification email could not be sent. Use Resend to try again."
    };
    let body = json!({
        "success": true,
        "message": message,
        "data": { "user": user.public(), "requiresEmailVerification": true, "verificationEmailSent": sent },
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

pub async fn login(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<Credentials>,
) -> ApiResult<Json<Value>> {
    let code = body.code.or(body.otp);
    let user = authenticate(
        &state,
        &ip.to_string(),
        &body.email,
        body.password,
        code.as_deref(),
    )
    .await?;
    signed_in(&state, &user)
}

/// `{user, token}` for a freshly authenticated user.
pub fn signed_in(state: &AppState, user: &User) -> ApiResult<Json<Value>> {
    let token = issue_token(state, user.id, user.token_version)?;
    Ok(ok(json!({ "user": user.public(), "token": token })))
}

/// Turns a rate-limit refusal into a 429 with Retry-After.
pub fn limited(result: Result<(), Limited>) -> ApiResult<()> {
    result.map_err(|Limited(secs)| {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many attempts. Please try again later.",
        )
        .with_retry_after(secs)
    })
}

fn account_key(email: &str) -> String {
    email.trim().to_lowercase()
}

/// The password step: the user and their two-factor settings when the password is right.
/// Failures count against the account and the client address.
pub async fn password_step(
    state: &AppState,
    limits: &FailureLimits,
    client: &str,
    email: &str,
    password: String,
) -> ApiResult<(User, TwoFactor)> {
    if email.trim().is_empty() || password.is_empty() {
        return Err(ApiError::bad_request("Email and password are required"));
    }
    let account = account_key(email);
    limited(limits.attempt(&account, client))?;
    let lookup = email.trim().to_owned();
    let found = state
        .db
        .read(move |conn| {
            let Some(user) = users::find_by_email(conn, &lookup)? else {
                return Ok(None);
            };
            let tf = users::two_factor(conn, user.id)?;
            Ok::<_, ApiError>(Some((user, tf)))
        })
        .await?;
    let stored = found.as_ref().map(|(user, _)| user.password_hash.clone());
    match found {
        Some(found) if accounts::check_password(password, stored).await => {
            limits.forgive(&account, client);
            Ok(found)
        }
        _ => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "Invalid email or password",
        )),
    }
}

/// The whole sign-in: password, verified address, then the second factor when enabled. A
/// code without the right password never signs anyone in.
pub async fn authenticate(
    state: &AppState,
    client: &str,
    email: &str,
    password: String,
    code: Option<&str>,
) -> ApiResult<User> {
    let (user, tf) = password_step(state, &state.limits.sign_in, client, email, password).await?;
    if !user.email_verified && state.mailer.is_configured() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "Please verify your email address before signing in",
        )
        .with_field("requiresEmailVerification", true));
    }
    let account = account_key(email);
    if tf.enabled() {
        let Some(code) = code.map(str::trim).filter(|c| !c.is_empty()) else {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "Two-factor authentication code required",
            )
            .with_field("requires2FA", true)
            .with_field("availableMethods", tf.methods())
            .with_field("preferredMethod", tf.preference()));
        };
        let key = state.secrets.jwt_key.clone();
        let code = code.to_owned();
        let user_id = user.id;
        let accepted = state
            .db
            .write(move |conn| {
                accounts::check_second_factor(conn, &key, user_id, &tf, &code).map_err(ApiError::from)
            })
            .await?;
        if accepted.is_none() {
            state.limits.sign_in.record(&account, client);
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "Invalid verification code",
            ));
        }
    }
    state.limits.sign_in.per_account.clear(&account);
    Ok(user)
}

/// The account password, asked again before changes a stolen session must not make
/// (two-factor set-up, new backup codes, turning two-factor off, deleting the account).
#[derive(Deserialize)]
pub struct PasswordBody {
    #[serde(default)]
    pub password: String,
}

pub async fn confirm_password(
    state: &AppState,
    client: &str,
    user: &User,
    password: String,
) -> ApiResult<()> {
    if password.is_empty() {
        return Err(ApiError::bad_request("Please enter your password"));
    }
    let account = account_key(&user.email);
    limited(state.limits.sign_in.attempt(&account, client))?;
    if accounts::check_password(password, Some(user.password_hash.clone())).await {
        state.limits.sign_in.forgive(&account, client);
        Ok(())
    } else {
        Err(ApiError::bad_request("Password is incorrect"))
    }
}

#[derive(Deserialize)]
pub struct RefreshBody {
    token: Option<String>,
}

/// A fresh token for a valid one (from the body, or the Authorization header).
pub async fn refresh(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    body: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> ApiResult<Json<Value>> {
    let body = body.map_err(|e| ApiError::new(e.status(), "Request body is too large"))?;
    // The body is optional: a client may send the token in the header only.
    let body: Option<RefreshBody> = match body.is_empty() {
        true => None,
        false => Some(
            serde_json::from_slice(&body)
                .map_err(|e| ApiError::bad_request(format!("Invalid request body: {e}")))?,
        ),
    };
    let from_header = bearer_token(&headers).map(str::to_owned);
    let token = body.and_then(|b| b.token).or(from_header).unwrap_or_default();
    match user_for_token(&state, token.trim()).await? {
        Some(user) => signed_in(&state, &user),
        None => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "Invalid or expired session",
        )),
    }
}

pub async fn me(AuthUser(user): AuthUser) -> Json<Value> {
    ok(user.public())
}

#[derive(Deserialize)]
pub struct ProfileUpdate {
    #[serde(rename = "firstName")]
    first_name: Option<String>,
    #[serde(rename = "lastName")]
    last_name: Option<String>,
}

pub async fn update_me(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<ProfileUpdate>,
) -> ApiResult<Json<Value>> {
    let first = body
        .first_name
        .map(|s| s.trim().to_owned())
        .unwrap_or(user.first_name);
    let last = body
        .last_name
        .map(|s| s.trim().to_owned())
        .unwrap_or(user.last_name);
    if first.chars().count() > MAX_NAME_LENGTH {
        return Err(ApiError::bad_request("First name must be at most 100 characters"));
    }
    if last.chars().count() > MAX_NAME_LENGTH {
        return Err(ApiError::bad_request("Last name must be at most 100 characters"));
    }
    let id = user.id;
    let updated = state
        .db
        .write(move |conn| {
            users::update_profile(conn, id, &first, &last, &clock::now_stamp())?;
            users::find_by_id(conn, id)?.ok_or_else(|| ApiError::not_found("User not found"))
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "Profile updated successfully", "data": updated.public() }),
    ))
}

pub async fn delete_me(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PasswordBody>,
) -> ApiResult<Json<Value>> {
    confirm_password(&state, &ip.to_string(), &user, body.password).await?;
    state
        .db
        .write(move |conn| users::delete(conn, user.id).map_err(ApiError::from))
        .await?;
    // Their daily exports go with the account: nothing of theirs stays on the server.
    let backups = user_backups::dir_for(&state.backups_dir, user.id);
    if let Err(e) = tokio::task::spawn_blocking(move || user_backups::remove_all(&backups))
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
    {
        tracing::error!(
            user = user.id,
            "could not remove the deleted account's backups: {e}"
        );
    }
    tracing::info!(user = user.id, "account deleted");
    Ok(Json(json!({ "success": true, "message": "Account deleted" })))
}

/// Opened by the web app's verification page (never directly by a mail scanner: the link
/// in the e-mail points at that page).
pub async fn verify_email(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let hash = codes::hash_link_token(token.trim());
    let verified = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let Some(user_id) = users::verification_user(&tx, &hash, &clock::now_stamp())? else {
                return Ok(false);
            };
            users::mark_verified(&tx, user_id)?;
            tx.commit()?;
            Ok::<_, ApiError>(true)
        })
        .await;
    match verified {
        Ok(true) => Json(json!({ "success": true, "emailVerified": true, "message": "Email verified successfully" }))
            .into_response(),
        Ok(false) => (
            StatusCode::BAD_REQUEST,
            Json(json!({ "success": false, "emailVerified": false, "message": "Invalid or expired verification link" })),
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

#[derive(Deserialize)]
pub struct ResendBody {
    #[serde(default)]
    email: String,
}

/// Sends a new verification link. The answer is the same whether or not the address has an
/// account waiting, so it reveals nothing.
pub async fn resend_verification(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<ResendBody>,
) -> ApiResult<Json<Value>> {
    let email = accounts::validate_email(&body.email).map_err(ApiError::bad_request)?;
    if !state.mailer.is_configured() {
        return Err(ApiError::bad_request("Email is not configured on this server"));
    }
    limited(state.limits.verification_per_account.hit(&account_key(&email)))?;
    limited(state.limits.verification_per_client.hit(&ip.to_string()))?;
    let issued = state
        .db
        .write(move |conn| {
            let Some(user) = users::find_by_email(conn, &email)?.filter(|u| !u.email_verified) else {
                return Ok(None);
            };
            let tx = conn.transaction()?;
            let token = accounts::new_verification(&tx, user.id)?;
            tx.commit()?;
            Ok::<_, ApiError>(Some((user.email, token)))
        })
        .await?;
    // Sent in the background: the answer takes the same time whether or not the address
    // has an account waiting, so its timing reveals nothing either.
    if let Some((address, token)) = issued {
        let mailer = state.mailer.clone();
        let email = accounts::verification_email(&state.settings.link_base(), &token);
        tokio::spawn(async move {
            if let Err(e) = mailer.send(&address, email).await {
                tracing::error!("verification e-mail not sent: {e}");
            }
        });
    }
    Ok(Json(json!({
        "success": true,
        "message": "If an account with that address is waiting for verification, a new link has been sent.",
    })))
}

#[derive(Deserialize)]
pub struct PasswordChange {
    #[serde(rename = "currentPassword", default)]
    current_password: String,
    #[serde(rename = "newPassword", default)]
    new_password: String,
}

/// Changes the password (the current one is required) and signs out every other session:
/// the answer carries the new token for this one.
pub async fn change_password(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PasswordChange>,
) -> ApiResult<Json<Value>> {
    let account = account_key(&user.email);
    let client = ip.to_string();
    limited(state.limits.sign_in.attempt(&account, &client))?;
    if !accounts::check_password(body.current_password, Some(user.password_hash.clone())).await {
        return Err(ApiError::bad_request("Current password is incorrect"));
    }
    state.limits.sign_in.forgive(&account, &client);
    accounts::validate_new_password(&body.new_password).map_err(ApiError::bad_request)?;
    let hash = accounts::hash_password(body.new_password)
        .await
        .map_err(ApiError::internal)?;
    let id = user.id;
    let updated = state
        .db
        .write(move |conn| {
            users::set_password(conn, id, &hash, &clock::now_stamp())?;
            users::find_by_id(conn, id)?.ok_or_else(|| ApiError::not_found("User not found"))
        })
        .await?;
    let token = issue_token(&state, updated.id, updated.token_version)?;
    Ok(Json(json!({
        "success": true,
        "message": "Password changed successfully",
        "data": { "user": updated.public(), "token": token },
    })))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .route("/auth/register", routing::post(register))
        .route("/auth/login", routing::post(login))
        .route("/auth/refresh", routing::post(refresh))
        .route("/auth/me", routing::get(me).put(update_me).delete(delete_me))
        .route("/auth/verify-email/{token}", routing::get(verify_email))
        .route("/auth/resend-verification", routing::post(resend_verification))
        .route("/auth/change-password", routing::post(change_password))
}

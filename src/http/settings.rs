//! `/api/settings`: the app settings of SPEC §3 kept per user on the server (DESIGN §6), so
//! they follow the person to another device. The time zone and default reminder time are
//! what the server itself uses.

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{MessageData, message_data};
use super::error::{ApiResult, Data, ErrorBody, data};
use super::extract::ApiJson;
use super::routes;
use super::session::AuthUser;
use crate::services::user_settings::{self, AppSettings, SettingsChange};

/// The person's app settings.
#[utoipa::path(
    get,
    path = "/settings",
    tag = "settings",
    responses(
        (status = 200, description = "Every setting, defaults filled in", body = Data<AppSettings>),
    ),
)]
pub async fn get(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<AppSettings>>> {
    let s = state
        .db
        .read(move |conn| user_settings::get(conn, user.id))
        .await?;
    Ok(data(s))
}

/// Updates the given settings; the others keep their values.
#[utoipa::path(
    put,
    path = "/settings",
    tag = "settings",
    request_body = SettingsChange,
    responses(
        (status = 200, description = "The settings as saved", body = MessageData<AppSettings>),
        (status = 400, description = "A value that is not one of the choices", body = ErrorBody),
    ),
)]
pub async fn update(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(change): ApiJson<SettingsChange>,
) -> ApiResult<Json<MessageData<AppSettings>>> {
    user_settings::check(&change)?;
    let days = state.settings.reminders.horizon_days;
    let now = state.clock.now();
    let saved = state
        .db
        .write(move |conn| user_settings::update(conn, user.id, change, days, now))
        .await?;
    Ok(message_data("App settings updated successfully", saved))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get, update))
}

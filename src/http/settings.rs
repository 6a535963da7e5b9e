//! `/api/settings`: the app settings of SPEC §3 kept per user on the server (DESIGN §6), so
//! they follow the person to another device. The time zone and default reminder time are
//! what the server itself uses.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::AppState;
use super::error::{ApiError, ApiResult, ok};
use super::extract::ApiJson;
use super::session::AuthUser;
use crate::reminders::planner;
use crate::services::user_settings::{self, DATE_FORMATS, LANGUAGES, RETENTION_DAYS, THEMES, TIME_FORMATS};
use crate::store::settings::{self, UserSettings};
use axum::routing;
use utoipa_axum::router::OpenApiRouter;

fn to_json(s: &UserSettings) -> Value {
    user_settings::view(s)
}

pub async fn get(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Json<Value>> {
    let s = state
        .db
        .read(move |conn| settings::get(conn, user.id).map_err(ApiError::from))
        .await?;
    Ok(ok(to_json(&s)))
}

#[derive(Deserialize)]
pub struct SettingsInput {
    language: Option<String>,
    timezone: Option<String>,
    #[serde(rename = "dateFormat")]
    date_format: Option<String>,
    #[serde(rename = "timeFormat")]
    time_format: Option<String>,
    #[serde(rename = "defaultReminderTime")]
    default_reminder_time: Option<String>,
    #[serde(rename = "autoBackup")]
    auto_backup: Option<bool>,
    #[serde(rename = "dataRetention")]
    data_retention: Option<i64>,
    theme: Option<String>,
}

fn one_of(
    value: Option<String>,
    allowed: &[&str],
    label: &str,
    into: &mut Map<String, Value>,
    key: &str,
) -> ApiResult<()> {
    if let Some(value) = value {
        if !allowed.contains(&value.as_str()) {
            return Err(ApiError::bad_request(format!(
                "{label} must be one of {}",
                allowed.join(", ")
            )));
        }
        into.insert(key.into(), json!(value));
    }
    Ok(())
}

/// Updates the given settings; the others keep their values.
pub async fn update(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(input): ApiJson<SettingsInput>,
) -> ApiResult<Json<Value>> {
    if let Some(tz) = &input.timezone
        && tz.parse::<chrono_tz::Tz>().is_err()
    {
        return Err(ApiError::bad_request(format!("Unknown time zone '{tz}'")));
    }
    if let Some(time) = &input.default_reminder_time
        && chrono::NaiveTime::parse_from_str(time, "%H:%M").is_err()
    {
        return Err(ApiError::bad_request(
            "Default reminder time must be written as HH:MM",
        ));
    }
    if input.data_retention.is_some_and(|d| !RETENTION_DAYS.contains(&d)) {
        return Err(ApiError::bad_request(
            "Data retention must be 0, 30, 90, 365 or 730 days",
        ));
    }
    let input_changes_schedules = input.timezone.is_some() || input.default_reminder_time.is_some();
    let days = state.settings.reminders.horizon_days;
    let saved = state
        .db
        .write(move |conn| {
            let mut s = settings::get(conn, user.id)?;
            let p = &mut s.preferences;
            one_of(input.language, LANGUAGES, "Language", p, "language")?;
            one_of(input.date_format, DATE_FORMATS, "Date format", p, "dateFormat")?;
            one_of(input.time_format, TIME_FORMATS, "Time format", p, "timeFormat")?;
            one_of(input.theme, THEMES, "Theme", p, "theme")?;
            if let Some(auto) = input.auto_backup {
                p.insert("autoBackup".into(), json!(auto));
            }
            if let Some(days) = input.data_retention {
                p.insert("dataRetention".into(), json!(days));
            }
            if let Some(tz) = input.timezone {
                s.timezone = tz;
            }
            if let Some(time) = input.default_reminder_time {
                s.default_reminder_time = time;
            }
            let replan = input_changes_schedules;
            let tx = conn.transaction()?;
            settings::save(&tx, user.id, &s)?;
            // Wall-clock times mean another instant now: plan the reminders again.
            if replan {
                planner::plan_user(&tx, user.id, days)?;
            }
            tx.commit()?;
            Ok::<_, ApiError>(s)
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "App settings updated successfully", "data": to_json(&saved) }),
    ))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().route("/settings", routing::get(get).put(update))
}

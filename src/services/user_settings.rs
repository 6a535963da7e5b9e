//! The per-user app settings as the API shows them (SPEC §3 "App settings"), and the two
//! that jobs act on: daily auto-backup and history retention.

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

use super::{ErrorCode, Problem, ServiceError, ServiceResult, invalid};
use crate::domain::api_schema::integer_choices;
use crate::domain::words::Lang;
use crate::services::planner;
use crate::store::settings::{self, UserSettings};

pub const LANGUAGES: &[&str] = &["en", "es", "fr", "de"];
/// `auto`: as the person's language writes dates (and times); the others are a choice.
pub const DATE_FORMATS: &[&str] = &["auto", "MM/dd/yyyy", "dd/MM/yyyy", "yyyy-MM-dd"];
pub const TIME_FORMATS: &[&str] = &["auto", "12h", "24h"];
pub const THEMES: &[&str] = &["light", "dark", "system"];

/// The retention periods a person can choose, in days; 0 keeps everything.
pub const RETENTION_DAYS: &[i64] = &[0, 30, 90, 365, 730];

/// The language the user chose for the app, which their reminders and e-mails are written
/// in (English when unset).
pub fn language(conn: &Connection, user_id: i64) -> ServiceResult<Lang> {
    Ok(language_of(&settings::get(conn, user_id)?))
}

/// The language stored settings choose (English when unset).
pub fn language_of(s: &UserSettings) -> Lang {
    Lang::of(s.preferences.get("language").and_then(Value::as_str))
}

/// How stored settings write a time of day: the chosen clock, or their language's.
pub fn time_pattern_of(s: &UserSettings) -> &'static str {
    language_of(s).time_pattern_for(s.preferences.get("timeFormat").and_then(Value::as_str))
}

/// A person's app settings, every one with its default filled in.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppSettings {
    /// One of `en`, `es`, `fr`, `de`.
    pub language: String,
    /// One of `auto` (as the language writes dates: en 11/26/2026, de 26.11.2026, es and fr
    /// 26/11/2026), `MM/dd/yyyy`, `dd/MM/yyyy`, `yyyy-MM-dd`.
    pub date_format: String,
    /// `auto` (en on the 12-hour clock, es, fr and de on the 24-hour one), `12h` or `24h`.
    pub time_format: String,
    pub auto_backup: bool,
    /// Days of history kept: 0 (everything), 30, 90, 365 or 730.
    #[schema(schema_with = retention_kept)]
    pub data_retention: i64,
    /// `light`, `dark` or `system`.
    pub theme: String,
    /// An IANA time zone, e.g. `Europe/Berlin`.
    pub timezone: String,
    /// HH:MM.
    pub default_reminder_time: String,
}

impl AppSettings {
    /// Retention defaults to "forever" (0), not the spec's 365: nothing is deleted unless the
    /// person chose a period themselves.
    pub fn of(s: &UserSettings) -> AppSettings {
        let p = &s.preferences;
        let text =
            |key: &str, default: &str| p.get(key).and_then(Value::as_str).unwrap_or(default).to_owned();
        AppSettings {
            language: text("language", "en"),
            date_format: text("dateFormat", "auto"),
            time_format: text("timeFormat", "auto"),
            auto_backup: p.get("autoBackup").and_then(Value::as_bool).unwrap_or(true),
            data_retention: p.get("dataRetention").and_then(Value::as_i64).unwrap_or(0),
            theme: text("theme", "system"),
            timezone: s.timezone.clone(),
            default_reminder_time: s.default_reminder_time.clone(),
        }
    }
}

/// Every setting with its default filled in, as the export file holds them.
pub fn view(s: &UserSettings) -> Value {
    serde_json::to_value(AppSettings::of(s)).unwrap_or_else(|_| json!({}))
}

/// A change to the settings: the ones given are set, the others keep their values.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsChange {
    /// `en`, `es`, `fr` or `de`.
    #[schema(pattern = "^(en|es|fr|de)$")]
    pub language: Option<String>,
    /// An IANA time zone (`Europe/Berlin`).
    #[schema(min_length = 1)]
    pub timezone: Option<String>,
    #[schema(pattern = "^(auto|MM/dd/yyyy|dd/MM/yyyy|yyyy-MM-dd)$")]
    pub date_format: Option<String>,
    #[schema(pattern = "^(auto|12h|24h)$")]
    pub time_format: Option<String>,
    /// HH:MM.
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub default_reminder_time: Option<String>,
    pub auto_backup: Option<bool>,
    /// Days of history kept: 0 (all of it), 30, 90, 365 or 730.
    #[schema(schema_with = retention_choices)]
    pub data_retention: Option<i64>,
    #[schema(pattern = "^(light|dark|system)$")]
    pub theme: Option<String>,
}

const RETENTION_ABOUT: &str = "Days of history kept: 0 (all of it), 30, 90, 365 or 730.";

/// The document's `dataRetention` in a change: one of `RETENTION_DAYS`, or null.
fn retention_choices() -> utoipa::openapi::schema::Object {
    integer_choices(RETENTION_DAYS, true, RETENTION_ABOUT)
}

/// The document's `dataRetention` as the settings hold it: one of `RETENTION_DAYS`.
pub(crate) fn retention_kept() -> utoipa::openapi::schema::Object {
    integer_choices(RETENTION_DAYS, false, RETENTION_ABOUT)
}

/// A language the app names (`en`, `es`, `fr`, `de`); anything else is refused as the
/// settings refuse it.
pub fn parse_language(code: &str) -> ServiceResult<Lang> {
    one_of(
        Some(code.to_owned()),
        LANGUAGES,
        "Language",
        &mut Map::new(),
        "language",
    )?;
    Ok(Lang::of(Some(code)))
}

/// Keeps `language` as the person's choice (a new account takes the one its app was shown in).
pub fn set_language(conn: &Connection, user_id: i64, language: Lang) -> ServiceResult<()> {
    let mut s = settings::get(conn, user_id)?;
    s.preferences.insert("language".into(), json!(language.code()));
    settings::save(conn, user_id, &s)?;
    Ok(())
}

fn one_of(
    value: Option<String>,
    allowed: &[&str],
    label: &str,
    into: &mut Map<String, Value>,
    key: &str,
) -> ServiceResult<()> {
    if let Some(value) = value {
        if !allowed.contains(&value.as_str()) {
            let problem = Problem::new(
                ErrorCode::ValidationFailed,
                format!("{label} must be one of {}", allowed.join(", ")),
            )
            .with_param("field", key)
            .with_param("allowed", allowed);
            return Err(ServiceError::Invalid(problem));
        }
        into.insert(key.into(), json!(value));
    }
    Ok(())
}

/// Checks a change without the database (the choices are checked with it, in `update`).
pub fn check(change: &SettingsChange) -> ServiceResult<()> {
    if let Some(tz) = &change.timezone
        && tz.parse::<chrono_tz::Tz>().is_err()
    {
        let problem = Problem::new(ErrorCode::ValidationFailed, format!("Unknown time zone '{tz}'"))
            .with_param("timezone", tz.as_str());
        return Err(ServiceError::Invalid(problem));
    }
    if let Some(time) = &change.default_reminder_time
        && chrono::NaiveTime::parse_from_str(time, "%H:%M").is_err()
    {
        return Err(invalid("Default reminder time must be written as HH:MM"));
    }
    if change
        .data_retention
        .is_some_and(|d| !RETENTION_DAYS.contains(&d))
    {
        return Err(invalid("Data retention must be 0, 30, 90, 365 or 730 days"));
    }
    Ok(())
}

/// Applies a change (checked with `check`). A new time zone or default reminder time means
/// other instants for the same wall-clock times: the reminders are planned again, up to
/// `horizon_days` ahead.
pub fn update(
    conn: &mut Connection,
    user_id: i64,
    change: SettingsChange,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<AppSettings> {
    let replan = change.timezone.is_some() || change.default_reminder_time.is_some();
    let mut s = settings::get(conn, user_id)?;
    let p = &mut s.preferences;
    one_of(change.language, LANGUAGES, "Language", p, "language")?;
    one_of(change.date_format, DATE_FORMATS, "Date format", p, "dateFormat")?;
    one_of(change.time_format, TIME_FORMATS, "Time format", p, "timeFormat")?;
    one_of(change.theme, THEMES, "Theme", p, "theme")?;
    if let Some(auto) = change.auto_backup {
        p.insert("autoBackup".into(), json!(auto));
    }
    if let Some(days) = change.data_retention {
        p.insert("dataRetention".into(), json!(days));
    }
    if let Some(tz) = change.timezone {
        s.timezone = tz;
    }
    if let Some(time) = change.default_reminder_time {
        s.default_reminder_time = time;
    }
    let tx = conn.transaction()?;
    settings::save(&tx, user_id, &s)?;
    if replan {
        planner::plan_user_at(&tx, user_id, horizon_days, now)?;
    }
    tx.commit()?;
    Ok(AppSettings::of(&s))
}

/// The person's settings.
pub fn get(conn: &Connection, user_id: i64) -> ServiceResult<AppSettings> {
    Ok(AppSettings::of(&settings::get(conn, user_id)?))
}

/// Whether the person keeps a daily export of their data (on unless they turned it off).
pub fn auto_backup(s: &UserSettings) -> bool {
    s.preferences
        .get("autoBackup")
        .and_then(Value::as_bool)
        .unwrap_or(true)
}

/// The retention period the person chose, if any; `None` keeps everything.
pub fn retention_days(s: &UserSettings) -> Option<i64> {
    s.preferences
        .get("dataRetention")
        .and_then(Value::as_i64)
        .filter(|days| *days > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_that_never_chose_keeps_everything() {
        let mut s = UserSettings::default();
        assert_eq!(retention_days(&s), None);
        assert_eq!(view(&s)["dataRetention"], json!(0));
        assert!(auto_backup(&s));
        s.preferences.insert("dataRetention".into(), json!(90));
        s.preferences.insert("autoBackup".into(), json!(false));
        assert_eq!(retention_days(&s), Some(90));
        assert_eq!(view(&s)["dataRetention"], json!(90));
        assert!(!auto_backup(&s));
    }

    #[test]
    fn stored_settings_write_in_their_language_on_the_chosen_clock() {
        let mut s = UserSettings::default();
        assert_eq!((language_of(&s), time_pattern_of(&s)), (Lang::En, "%-I:%M %p"));
        s.preferences.insert("language".into(), json!("de"));
        assert_eq!((language_of(&s), time_pattern_of(&s)), (Lang::De, "%H:%M"));
        s.preferences.insert("timeFormat".into(), json!("12h"));
        assert_eq!(time_pattern_of(&s), "%-I:%M %p");
    }
}

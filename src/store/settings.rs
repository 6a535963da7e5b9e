//! Per-user settings: time zone, default reminder time, and the app's other preferences.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

#[derive(Debug, Clone)]
pub struct UserSettings {
    pub timezone: String,
    pub default_reminder_time: String,
    /// The client's other settings as a JSON object.
    pub preferences: serde_json::Map<String, serde_json::Value>,
}

impl Default for UserSettings {
    fn default() -> Self {
        UserSettings {
            timezone: "UTC".into(),
            default_reminder_time: "09:00".into(),
            preferences: serde_json::Map::new(),
        }
    }
}

pub fn get(conn: &Connection, user_id: i64) -> rusqlite::Result<UserSettings> {
    conn.prepare_cached(
        "SELECT timezone, default_reminder_time, preferences FROM user_settings WHERE user_id = ?1",
    )?
    .query_row([user_id], |row| {
        let preferences: String = row.get(2)?;
        Ok(UserSettings {
            timezone: row.get(0)?,
            default_reminder_time: row.get(1)?,
            preferences: serde_json::from_str(&preferences).unwrap_or_default(),
        })
    })
    .optional()
    .map(Option::unwrap_or_default)
}

/// The time zone and default reminder time of the users with ids from `first` to `last`
/// who saved settings (the others have the defaults).
pub fn clocks_for_users(
    conn: &Connection,
    first: i64,
    last: i64,
) -> rusqlite::Result<HashMap<i64, (String, String)>> {
    conn.prepare_cached(
        "SELECT user_id, timezone, default_reminder_time FROM user_settings WHERE user_id BETWEEN ?1 AND ?2",
    )?
    .query_map([first, last], |row| Ok((row.get(0)?, (row.get(1)?, row.get(2)?))))?
    .collect()
}

pub fn save(conn: &Connection, user_id: i64, s: &UserSettings) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO user_settings (user_id, timezone, default_reminder_time, preferences) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (user_id) DO UPDATE SET timezone = excluded.timezone,
           default_reminder_time = excluded.default_reminder_time, preferences = excluded.preferences",
        params![user_id, s.timezone, s.default_reminder_time, serde_json::Value::Object(s.preferences.clone()).to_string()],
    )?;
    Ok(())
}

/// The users who have saved settings.
pub fn users(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    conn.prepare("SELECT user_id FROM user_settings ORDER BY user_id")?
        .query_map([], |row| row.get(0))?
        .collect()
}

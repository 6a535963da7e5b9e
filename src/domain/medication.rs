//! What a medication may look like: its colours, default icon and text limits. The API and
//! the importer check medications against the same rules.

pub const COLORS: &[&str] = &["blue", "red", "green", "yellow", "purple", "pink", "orange"];
pub const DEFAULT_ICON: &str = "pill-symbolic";
pub const MAX_NAME: usize = 200;
pub const MAX_NOTES: usize = 2000;
pub const MAX_SHORT_TEXT: usize = 64;

/// A text field: trimmed, at most `max` characters.
pub fn limited_text(value: &str, max: usize, label: &str) -> Result<String, String> {
    let value = value.trim();
    if value.chars().count() > max {
        return Err(format!("{label} must be at most {max} characters"));
    }
    Ok(value.to_owned())
}

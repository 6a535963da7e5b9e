//! What a medication may look like: its colours, default icon and text limits. The API and
//! the importer check medications against the same rules.

pub const COLORS: &[&str] = &["blue", "red", "green", "yellow", "purple", "pink", "orange"];
pub const DEFAULT_ICON: &str = "pill-symbolic";
pub const MAX_NAME: usize = 200;
pub const MAX_NOTES: usize = 2000;
pub const MAX_SHORT_TEXT: usize = 64;

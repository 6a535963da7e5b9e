//! The version string shown by `--version`, `/api/version` and the web app's sidebar.

/// Cargo's version plus the git revision when the build knew it, e.g. `0.1.0+3f2a9c1d`
/// (set by build.rs).
pub const VERSION: &str = env!("PILLBOX_VERSION");

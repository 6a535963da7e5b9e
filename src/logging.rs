//! Logs go to standard error through `tracing`: plain lines for journald, or JSON.

use std::io::IsTerminal;

use tracing_subscriber::filter::Targets;
use tracing_subscriber::prelude::*;

use crate::config::{LogFormat, LogSettings};

/// Installs the global subscriber. `log.level` was validated when the settings were loaded.
pub fn init(settings: &LogSettings) {
    // `Targets` ("info", "pillbox=debug,hyper=warn") rather than `EnvFilter`: the same level
    // syntax without a regex engine in the binary.
    let filter = settings
        .level
        .parse::<Targets>()
        .unwrap_or_else(|_| Targets::new().with_default(tracing::Level::INFO));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    // journald adds its own timestamps; keep ours for people running it in a terminal.
    let registry = tracing_subscriber::registry();
    let _ = match settings.format {
        LogFormat::Plain => registry.with(layer.with_target(false)).with(filter).try_init(),
        LogFormat::Json => registry
            .with(layer.json().flatten_event(true))
            .with(filter)
            .try_init(),
    };
}

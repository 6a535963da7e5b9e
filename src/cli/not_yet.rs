//! Subcommands whose features are not in this build yet. They refuse clearly, change
//! nothing and exit non-zero, rather than pretending to work.

use clap::Args;

use super::{CliResult, DataArgs};

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    data: DataArgs,
    /// E-mail address of the account to export
    #[arg(long)]
    email: String,
}

fn unavailable(command: &str, feature: &str) -> CliResult {
    Err(format!("`pillbox {command}` is not available in this build yet: it arrives with {feature}. Nothing was changed").into())
}

pub fn export(_: ExportArgs) -> CliResult {
    unavailable("export", "medications and history")
}

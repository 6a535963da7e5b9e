//! `pillbox backup` and `pillbox restore`: the whole instance in one file and back.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{CliResult, DataArgs, Paths, load_settings};
use crate::config::display_path;
use crate::services::backup;

#[derive(Args)]
pub struct BackupArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Where to write the snapshot [default: DATA_DIR/backups/pillbox-<time>.sqlite3]
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub fn backup(args: BackupArgs) -> CliResult {
    let settings = load_settings(&args.data.overrides())?;
    let paths = Paths::new(&settings)?;
    paths.database_must_exist()?;
    let out = args.out.unwrap_or_else(|| {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
        paths.backups.join(format!("pillbox-{stamp}.sqlite3"))
    });
    let size = backup::snapshot(&paths.database, &paths.data_dir, &out)?;
    println!("{} ({size} bytes)", display_path(&out));
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct RestoreArgs {
    #[command(flatten)]
    data: DataArgs,
    /// A snapshot written by `pillbox backup` (or a daily one from backups/)
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

pub fn restore(args: RestoreArgs) -> CliResult {
    let settings = load_settings(&args.data.overrides())?;
    let paths = Paths::new(&settings)?;
    paths.ensure_data_dir()?;
    let restored = backup::restore(&args.file, &paths.data_dir)?;
    for name in &restored.migrations {
        println!("applied migration {name}");
    }
    if let Some(kept) = &restored.replaced {
        println!("the replaced database is kept as {}", display_path(kept));
    }
    for name in &restored.files {
        println!("restored {name}");
    }
    println!(
        "restored {} into {}",
        display_path(&args.file),
        display_path(&paths.database)
    );
    Ok(ExitCode::SUCCESS)
}

//! `pillbox migrate`: apply pending migrations, or list them with `--status`.

use std::process::ExitCode;

use clap::Args;

use super::{CliResult, DataArgs, Paths, load_settings, open_and_migrate};
use crate::config::display_path;
use crate::db::{self, migrations};

#[derive(Args)]
pub struct MigrateArgs {
    #[command(flatten)]
    data: DataArgs,
    /// List applied and pending migrations without changing anything
    #[arg(long)]
    status: bool,
}

pub fn run(args: MigrateArgs) -> CliResult {
    let settings = load_settings(&args.data.overrides())?;
    let paths = Paths::new(&settings)?;
    if args.status {
        return print_status(&paths);
    }
    paths.ensure_data_dir()?;
    let conn = open_and_migrate(&paths)?;
    let status = migrations::status(&conn)?;
    println!(
        "database {} is at schema version {} (latest)",
        display_path(&paths.database),
        status.current
    );
    Ok(ExitCode::SUCCESS)
}

fn print_status(paths: &Paths) -> CliResult {
    println!("database: {}", display_path(&paths.database));
    let status = if paths.database.exists() {
        let conn = db::open_connection(&paths.database, false)?;
        migrations::status(&conn)?
    } else {
        println!("(not created yet: `pillbox migrate` or `pillbox serve` creates it)");
        migrations::Status {
            current: 0,
            latest: migrations::MIGRATIONS.len(),
            applied: Vec::new(),
            pending: migrations::MIGRATIONS.iter().map(|m| m.name).collect(),
        }
    };
    println!("schema version: {} of {}", status.current, status.latest);
    for name in &status.applied {
        println!("applied  {name}");
    }
    for name in &status.pending {
        println!("pending  {name}");
    }
    Ok(ExitCode::SUCCESS)
}

//! The command line: one file per subcommand.

mod backup;
mod doctor;
mod export;
mod gen_vapid;
mod healthcheck;
mod migrate;
mod send_test;
mod serve;
mod systemd;
mod users;

use std::error::Error;
use std::fs::DirBuilder;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::config::{self, Loaded, Overrides, Settings};
use crate::db::{self, migrations};
use crate::version::VERSION;

pub type CliResult = Result<ExitCode, Box<dyn Error>>;

#[derive(Parser)]
#[command(
    name = "pillbox",
    version = VERSION,
    about = "Pillbox: a self-hosted medication tracker with reminders",
    long_about = "Pillbox: a self-hosted medication tracker with reminders.\n\n\
        Every flag has an environment twin (shown in each command's --help); every config key \
        has one too: PILLBOX_ plus the key path in capitals, e.g. PILLBOX_SMTP_HOST. \
        Precedence: flags > environment > config file > defaults.",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the web app, the JSON API and the reminder engine
    Serve(serve::ServeArgs),
    /// Apply pending database migrations, or list them with --status
    Migrate(migrate::MigrateArgs),
    /// Create an account from the command line (verified at once)
    CreateUser(users::UserArgs),
    /// Set a new password for an account and sign it out everywhere
    ResetPassword(users::UserArgs),
    /// Write one user's data as the JSON export file (or their history as CSV)
    Export(export::ExportArgs),
    /// Import an export file or a history CSV into one user's account
    Import(export::ImportArgs),
    /// Write a consistent snapshot of the whole instance (safe while serving)
    Backup(backup::BackupArgs),
    /// Replace the instance's database with a snapshot (the server must be stopped)
    Restore(backup::RestoreArgs),
    /// Generate a VAPID key pair for Web Push
    GenVapid(gen_vapid::GenVapidArgs),
    /// Send a test reminder to a user and report each channel's result
    SendTest(send_test::SendTestArgs),
    /// Print the API's OpenAPI 3.1 document (the same as GET /api/openapi.json)
    Openapi,
    /// Ask the configured server for /health: exit 0 when healthy, 1 otherwise (one line)
    Healthcheck(healthcheck::HealthcheckArgs),
    /// Check the instance: config, data directory, database, server, SMTP, keys, HTTPS,
    /// clock and backups, one line each with how to fix it; exit 1 when a check fails
    Doctor(doctor::DoctorArgs),
}

/// Flags shared by every subcommand that touches the instance's data.
#[derive(Args, Debug, Clone)]
pub struct DataArgs {
    /// Data directory: database, keys and backups [default: ~/.local/share/pillbox]
    #[arg(long, env = "PILLBOX_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Configuration file (TOML); see examples/config.toml
    #[arg(long, env = "PILLBOX_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
}

impl DataArgs {
    fn overrides(&self) -> Overrides {
        Overrides {
            config_file: self.config.clone(),
            data_dir: self.data_dir.clone(),
            bind: None,
        }
    }
}

pub fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Migrate(args) => migrate::run(args),
        Command::GenVapid(args) => gen_vapid::run(args),
        Command::CreateUser(args) => users::create_user(args),
        Command::ResetPassword(args) => users::reset_password(args),
        Command::Export(args) => export::export(args),
        Command::Import(args) => export::import(args),
        Command::Backup(args) => backup::backup(args),
        Command::Restore(args) => backup::restore(args),
        Command::SendTest(args) => send_test::run(args),
        Command::Healthcheck(args) => healthcheck::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Openapi => {
            print!("{}", crate::http::openapi::document_json()?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Loads the settings and starts logging (warnings about the environment need the logger).
fn load_settings(overrides: &Overrides) -> Result<Settings, Box<dyn Error>> {
    let Loaded { settings, warnings } = Settings::load(overrides)?;
    crate::logging::init(&settings.log);
    for warning in warnings {
        tracing::warn!("{warning}");
    }
    Ok(settings)
}

/// The instance's directories and files.
pub struct Paths {
    pub data_dir: PathBuf,
    pub database: PathBuf,
    pub backups: PathBuf,
}

impl Paths {
    fn new(settings: &Settings) -> Result<Paths, Box<dyn Error>> {
        let data_dir = settings.resolved_data_dir()?;
        Ok(Paths {
            database: data_dir.join(db::DATABASE_FILE),
            backups: data_dir.join("backups"),
            data_dir,
        })
    }

    /// For commands that work on an existing instance: refuse rather than create an empty
    /// database from a mistyped path.
    fn database_must_exist(&self) -> Result<(), Box<dyn Error>> {
        if self.database.exists() {
            return Ok(());
        }
        Err(format!(
            "no database at {}: check --data-dir, or run `pillbox serve` (or `pillbox migrate`) once to create it",
            config::display_path(&self.database)
        )
        .into())
    }

    /// Creates the data directory (mode 0700) if needed.
    fn ensure_data_dir(&self) -> Result<(), Box<dyn Error>> {
        if self.data_dir.exists() && !self.data_dir.is_dir() {
            return Err(format!("data directory {} is not a directory", self.data_dir.display()).into());
        }
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.data_dir)
            .map_err(|e| {
                format!(
                    "cannot create the data directory {}: {e}",
                    config::display_path(&self.data_dir)
                )
            })?;
        Ok(())
    }
}

/// Opens the existing database as it is, for commands that may run beside a server: they
/// never change its schema under it.
fn open_current(paths: &Paths) -> Result<rusqlite::Connection, Box<dyn Error>> {
    paths.database_must_exist()?;
    let conn = db::open_connection(&paths.database, false)
        .map_err(|e| format!("cannot open the database {}: {e}", paths.database.display()))?;
    let status = migrations::status(&conn)?;
    if !status.pending.is_empty() {
        return Err(format!(
            "the database needs {} migration(s) first: restart the server or run `pillbox migrate`",
            status.pending.len()
        )
        .into());
    }
    Ok(conn)
}

/// Opens the database, creating it if asked, and applies pending migrations.
fn open_and_migrate(paths: &Paths) -> Result<rusqlite::Connection, Box<dyn Error>> {
    if !paths.database.exists() {
        tracing::info!(
            "creating a new database at {}",
            config::display_path(&paths.database)
        );
        // Health data: owner only. SQLite gives the -wal and -shm files the same mode.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&paths.database)
            .map_err(|e| format!("cannot create the database {}: {e}", paths.database.display()))?;
    }
    let mut conn = db::open_connection(&paths.database, true)
        .map_err(|e| format!("cannot open the database {}: {e}", paths.database.display()))?;
    // A database an older version created under a lax umask, and the -wal and -shm files
    // SQLite gave its mode, become owner-only too.
    db::make_private(&paths.database).map_err(|e| {
        format!(
            "cannot make the database {} private: {e}",
            paths.database.display()
        )
    })?;
    let applied = migrations::migrate(&mut conn, &paths.backups)?;
    if let Some(snapshot) = &applied.snapshot {
        tracing::info!(
            "saved a copy of the database before migrating: {}",
            snapshot.display()
        );
    }
    for name in &applied.names {
        tracing::info!("applied migration {name}");
    }
    Ok(conn)
}

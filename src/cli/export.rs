//! `pillbox export` and `pillbox import`: one person's data as the same files the web app
//! downloads and uploads, whether the server runs or not (SQLite's WAL lets both work
//! beside it).

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{CliResult, DataArgs, Paths, load_settings, open_current};
use crate::files::PrivateFile;
use crate::services::import_sources::Origin;
use crate::services::{export, fhir, import};
use crate::store::users;

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Csv,
    Fhir,
}

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    data: DataArgs,
    /// E-mail address of the account to export
    #[arg(long)]
    email: String,
    /// json: the whole record (medications, history, settings); csv: the history only;
    /// fhir: the record as a FHIR R4 Bundle (people, medications, schedules, history)
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    /// With --format fhir: only this one of the account's people (the id in the app's address
    /// of their page, /people/ID)
    #[arg(long, value_name = "ID")]
    person_id: Option<i64>,
    /// Write to this file (mode 0600) instead of standard output
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

fn account(conn: &rusqlite::Connection, email: &str) -> Result<i64, Box<dyn std::error::Error>> {
    let email = email.trim();
    Ok(users::find_by_email(conn, email)?
        .ok_or_else(|| format!("no account with the e-mail address {email}"))?
        .id)
}

pub fn export(args: ExportArgs) -> CliResult {
    let settings = load_settings(&args.data.overrides())?;
    let paths = Paths::new(&settings)?;
    let conn = open_current(&paths)?;
    let user_id = account(&conn, &args.email)?;
    if args.person_id.is_some() && !matches!(args.format, Format::Fhir) {
        return Err("--person-id works with --format fhir only".into());
    }
    let now = crate::clock::now();
    let write = |out: &mut dyn Write| match args.format {
        Format::Json => export::write_json(&conn, user_id, now, out),
        Format::Csv => export::write_csv(&conn, user_id, out, now),
        Format::Fhir => fhir::write_bundle(&conn, user_id, args.person_id, now, out),
    };
    match &args.out {
        Some(path) => {
            let mut file =
                PrivateFile::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            write(&mut BufWriter::new(&mut file))?;
            let size = file.commit()?;
            eprintln!("wrote {} ({size} bytes)", path.display());
        }
        None => {
            let stdout = std::io::stdout();
            write(&mut BufWriter::new(stdout.lock()))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct ImportArgs {
    #[command(flatten)]
    data: DataArgs,
    /// E-mail address of the account to import into
    #[arg(long)]
    email: String,
    /// An export file (.json) or a history CSV; - reads standard input
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Whose file it is: pillbox (an export file or a history CSV), medtimer (MedTimer's
    /// events or medicines CSV) or fhir (a FHIR R4 Bundle)
    #[arg(long, value_enum, default_value = "pillbox")]
    source: SourceArg,
    /// Check the file and print what would be imported, changing nothing
    #[arg(long)]
    dry_run: bool,
    /// Import another app's file without the rows that cannot be read (a dry run lists them)
    #[arg(long)]
    skip_unreadable: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum SourceArg {
    Pillbox,
    Medtimer,
    Fhir,
}

pub fn import(args: ImportArgs) -> CliResult {
    let settings = load_settings(&args.data.overrides())?;
    let paths = Paths::new(&settings)?;
    paths.database_must_exist()?;
    let format = match args.file.extension().and_then(|e| e.to_str()) {
        Some(ext) if ext.eq_ignore_ascii_case("csv") => Some(import::Format::Csv),
        Some(ext) if ext.eq_ignore_ascii_case("json") => Some(import::Format::Json),
        _ => None,
    };
    let too_large = || {
        format!(
            "{} is too large: at most {} MiB can be imported at once",
            args.file.display(),
            import::MAX_FILE_BYTES / (1024 * 1024)
        )
    };
    let source = if args.file.as_os_str() == "-" {
        // Standard input goes into the data directory first: the import reads its file
        // more than once.
        let mut upload = import::Upload::create(&paths.data_dir)?;
        let mut stdin = std::io::stdin().lock();
        let mut chunk = vec![0; 1 << 16];
        loop {
            let n = stdin.read(&mut chunk)?;
            if n == 0 {
                break;
            }
            upload.append(&chunk[..n]).map_err(|e| match e {
                import::UploadError::TooLarge => too_large(),
                import::UploadError::Io(e) => format!("cannot keep standard input: {e}"),
            })?;
        }
        let content_type = match format {
            Some(import::Format::Csv) => Some("text/csv"),
            _ => None,
        };
        upload.finish(content_type)?
    } else {
        let size = std::fs::metadata(&args.file)
            .map_err(|e| format!("cannot read {}: {e}", args.file.display()))?
            .len();
        if usize::try_from(size).map_or(true, |size| size > import::MAX_FILE_BYTES) {
            return Err(too_large().into());
        }
        import::Source::at(args.file.clone(), format)
            .map_err(|e| format!("cannot read {}: {e}", args.file.display()))?
    };
    let conn = open_current(&paths)?;
    let user_id = account(&conn, &args.email)?;
    let now = crate::clock::now();
    let origin = match args.source {
        SourceArg::Pillbox => Origin::Pillbox,
        SourceArg::Medtimer => Origin::MedTimer,
        SourceArg::Fhir => Origin::Fhir,
    };
    let summary = import::run_from(
        &import::OnConnection(std::cell::RefCell::new(conn)),
        user_id,
        source,
        origin,
        &paths.data_dir,
        args.dry_run,
        args.skip_unreadable,
        settings.reminders.horizon_days,
        now,
    )?;
    for row in &summary.from.unreadable {
        println!("line {}: cannot be read: {}", row.line, row.reason);
    }
    if !summary.from.unknown_columns.is_empty() {
        println!("columns left out: {}", summary.from.unknown_columns.join(", "));
    }
    for notice in &summary.from.notices {
        println!("note: {notice}");
    }
    let verb = if args.dry_run { "would add" } else { "added" };
    if summary.people != import::Counts::default() {
        println!(
            "people: {verb} {}, {} already there",
            summary.people.added, summary.people.skipped
        );
    }
    println!(
        "medications: {verb} {}, {} already there\nschedules: {verb} {}\nhistory entries: {verb} {}, {} already there",
        summary.medications.added,
        summary.medications.skipped,
        summary.schedules.added,
        summary.history.added,
        summary.history.skipped
    );
    for (what, counts) in [
        ("prescriptions", summary.prescriptions),
        ("stock batches", summary.batches),
    ] {
        if counts != import::Counts::default() {
            println!(
                "{what}: {verb} {}, {} already there",
                counts.added, counts.skipped
            );
        }
    }
    if summary.settings.replaced {
        println!(
            "settings: {}",
            if args.dry_run {
                "would be replaced by the file's"
            } else {
                "replaced by the file's"
            }
        );
    }
    if args.dry_run {
        println!("dry run: nothing was changed");
    }
    Ok(ExitCode::SUCCESS)
}

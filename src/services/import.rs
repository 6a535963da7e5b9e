//! Import: an export file (JSON) or a history CSV brought into one account.
//!
//! The file comes onto disk (`Upload`) and is read as a stream, never whole in memory. It is
//! checked in full on a read connection before anything is written, and that check decides
//! everything the import does: a dry run stops there, so it never waits for the writer and
//! its counts are what the real import does. The real import then writes the history in
//! short transactions that other people's writes pass between, out of sight
//! (`store::imports`), and shows it all at once, with the people, medications and settings,
//! in one last short transaction: readers see all of it or none of it, and a failure or a
//! server that stops leaves nothing visible. Importing the same file twice adds nothing the
//! second time: a medication with the same name and unit is the same medication, and a
//! history entry of the same medication, instant and status is the same entry (a medication
//! already there keeps its own stock, batches and prescription). Imported history never moves
//! stock (the file's stock count is taken as it is; with batches, it is what those not expired
//! hold), and reminders are planned again afterwards.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration as Elapsed;

use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, TimeZone, Utc};
use rusqlite::Connection;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserializer as _, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::export::{EntryFile, FORMAT_VERSION, MedicationFile, PersonFile, parse_instant};
use super::import_sources::{self, Origin, SourceReport};
use super::{ErrorCode, Problem, ServiceError, ServiceResult, invalid, rejected, user_settings};
use crate::clock;
use crate::db::{Db, Stamp};
use crate::domain::dose::DoseStatus;
use crate::domain::medication::{
    COLORS, DEFAULT_ICON, FUTURE_SKEW_SECS, MAX_LEAD_MINUTES, MAX_MESSAGE, MAX_NAME, MAX_NOTES, MAX_REPEATS,
    MAX_SHORT_TEXT, limited_text,
};
use crate::domain::notification::{check_lead, check_message, check_methods};
use crate::domain::quantity::Quantity;
use crate::domain::schedule::{self, Frequency};
use crate::domain::stock;
use crate::domain::stock::Containers;
use crate::domain::units;
use crate::services::planner::{self, UserClock};
use crate::store::batches::{self, BatchFields};
use crate::store::history::{self, Entry, LoggedBy};
use crate::store::imports::{self, Reserved};
use crate::store::medications::{self, Inventory, Medication, StockChange};
use crate::store::notify_prefs::{self, GlobalPrefs, MedicationPrefs, Method};
use crate::store::prescriptions::{self, Prescription};
use crate::store::{people, reminders, settings};

/// The largest file accepted (a 100,000-entry export is about 20 MiB).
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;

/// How long one of the import's transactions may hold the writer: other people's doses
/// wait at most this long for it.
const STAGE_BUDGET: Elapsed = Elapsed::from_millis(15);

/// Entries handed to one staging transaction, which writes as many as its budget allows.
const STAGE_BATCH: usize = 2_000;

/// Staged rows one transaction deletes when an import is discarded.
const DISCARD_BATCH: usize = 2_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Counts {
    pub added: usize,
    pub skipped: usize,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Added {
    pub added: usize,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Replaced {
    pub replaced: bool,
}

/// What an import did, or (dry run) would do.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct Summary {
    pub dry_run: bool,
    /// People other than the account holder (the file's account holder is the importing
    /// account's own person): added, or already there by name.
    pub people: Counts,
    pub medications: Counts,
    pub schedules: Added,
    /// Prescriptions of the medications the import adds (a medication already there keeps
    /// its own: the file's is skipped).
    pub prescriptions: Counts,
    /// Stock batches of the medications the import adds (skipped as above).
    pub batches: Counts,
    pub history: Counts,
    pub settings: Replaced,
    /// Another app's file (`source=medtimer` or `fhir`): its rows that could not be read, its
    /// columns Pillbox does not read, and what was read differently. Empty for Pillbox's own.
    #[serde(flatten)]
    pub from: SourceReport,
}

/// A file checked, except its history entries, which are read again one at a time.
struct Plan {
    /// The file's people; None for a file from before the care circle (all the holder's).
    people: Option<Vec<PersonFile>>,
    medications: Vec<NewMedication>,
    settings: Option<SettingsPatch>,
    /// The file's reminder preferences (checked); only the fields it has are applied.
    preferences: Option<serde_json::Map<String, Value>>,
    /// A CSV's keys to its medications, to read its entries again.
    csv: Option<CsvKeys>,
}

/// The settings a file carries; what it leaves out keeps the account's value.
#[derive(Default)]
struct SettingsPatch {
    timezone: Option<String>,
    default_reminder_time: Option<String>,
    preferences: serde_json::Map<String, Value>,
}

struct NewMedication {
    file_id: i64,
    /// The file's person; None is the account holder.
    file_person: Option<i64>,
    archived: bool,
    medication: Medication,
    inventory: Option<Inventory>,
    prefs: Option<MedicationPrefs>,
    /// Checked as the API checks one; its medication is set when it is written.
    prescription: Option<Prescription>,
    /// Checked; whether each has expired is worked out when written, on the account's day.
    batches: Vec<(BatchFields, Option<Stamp>)>,
}

struct NewEntry {
    file_medication: i64,
    /// The file's person; None is the medication's.
    file_person: Option<i64>,
    logged_by_name: Option<String>,
    status: &'static str,
    taken: Stamp,
    quantity: Quantity,
    unit: String,
    note: Option<String>,
    affect_inventory: bool,
}

/// Hands each history entry of the file, checked, with its place among them.
type EachEntry<'a> = &'a mut dyn FnMut(usize, NewEntry) -> ServiceResult<()>;

// --- The file ------------------------------------------------------------------------------

/// A file that is deleted when this is dropped.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// How an upload's file in the data directory is named; a server that stopped while
/// receiving one leaves it behind, and the next start deletes it (`remove_leftovers`).
const UPLOAD_PREFIX: &str = ".import-";
const UPLOAD_SUFFIX: &str = ".upload";

/// The bytes the format is told from when the content type does not say.
const SNIFF_BYTES: usize = 4096;

#[derive(Debug)]
pub enum UploadError {
    TooLarge,
    Io(std::io::Error),
}

/// A file being received, written into the data directory readable only by Pillbox (it is
/// a person's health data) and deleted once the import is over.
pub struct Upload {
    file: BufWriter<File>,
    path: TempFile,
    written: usize,
    head: Vec<u8>,
}

impl Upload {
    pub fn create(dir: &Path) -> std::io::Result<Upload> {
        use rand_core::RngCore;
        let mut attempts = 0;
        loop {
            let name = format!(
                "{UPLOAD_PREFIX}{:016x}{UPLOAD_SUFFIX}",
                rand_core::OsRng.next_u64()
            );
            let path = dir.join(name);
            match crate::files::create_new_private(&path) {
                Ok(file) => {
                    return Ok(Upload {
                        file: BufWriter::with_capacity(1 << 20, file),
                        path: TempFile(path),
                        written: 0,
                        head: Vec::new(),
                    });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists && attempts < 4 => attempts += 1,
                Err(e) => return Err(e),
            }
        }
    }

    pub fn append(&mut self, chunk: &[u8]) -> Result<(), UploadError> {
        self.written += chunk.len();
        if self.written > MAX_FILE_BYTES {
            return Err(UploadError::TooLarge);
        }
        if self.head.len() < SNIFF_BYTES {
            let wanted = (SNIFF_BYTES - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..wanted]);
        }
        self.file.write_all(chunk).map_err(UploadError::Io)
    }

    /// The file received; its format from the content type, else from its first character.
    pub fn finish(self, content_type: Option<&str>) -> std::io::Result<Source> {
        let Upload { file, path, head, .. } = self;
        file.into_inner().map_err(|e| e.into_error())?;
        Ok(Source {
            path: path.0.clone(),
            _received: Some(path),
            format: sniff(content_type, &head),
        })
    }
}

/// Deletes the uploads a stopped server left in the data directory.
pub fn remove_leftovers(dir: &Path) -> std::io::Result<usize> {
    let mut removed = 0;
    for item in std::fs::read_dir(dir)? {
        let item = item?;
        let name = item.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(UPLOAD_PREFIX) && name.ends_with(UPLOAD_SUFFIX) && item.file_type()?.is_file() {
            std::fs::remove_file(item.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// The file to import, read as often as the import needs.
pub struct Source {
    path: PathBuf,
    /// Set when the file is an upload, deleted with this.
    _received: Option<TempFile>,
    format: Format,
}

impl Source {
    /// A file that stays where it is after the import (the CLI's).
    pub fn at(path: PathBuf, format: Option<Format>) -> std::io::Result<Source> {
        let format = match format {
            Some(format) => format,
            None => {
                let mut head = Vec::with_capacity(SNIFF_BYTES);
                File::open(&path)?
                    .take(SNIFF_BYTES as u64)
                    .read_to_end(&mut head)?;
                sniff(None, &head)
            }
        };
        Ok(Source {
            path,
            _received: None,
            format,
        })
    }

    /// This file read as `origin`'s (another app's) into a Pillbox export file, kept private in
    /// `dir` (the data directory) and deleted with the returned source.
    pub fn translated(
        self,
        origin: Origin,
        dir: &Path,
        now: DateTime<Utc>,
    ) -> ServiceResult<(Source, SourceReport)> {
        let read = |out: &mut dyn Write| match origin {
            Origin::Pillbox => Ok(SourceReport::default()),
            Origin::MedTimer => import_sources::medtimer(self.open()?, now, out),
            Origin::Fhir => import_sources::fhir(self.open()?, now, out),
        };
        if origin == Origin::Pillbox {
            return Ok((self, SourceReport::default()));
        }
        let mut upload = Upload::create(dir)?;
        let report = read(&mut upload.file)?;
        let translated = upload.finish(Some("application/json"))?;
        Ok((translated, report))
    }

    /// The file from its start, after a byte order mark if it has one.
    fn open(&self) -> ServiceResult<BufReader<File>> {
        let mut reader = BufReader::with_capacity(1 << 16, File::open(&self.path)?);
        if reader.fill_buf()?.starts_with(b"\xEF\xBB\xBF") {
            reader.consume(3);
        }
        Ok(reader)
    }

    fn is_blank(&self) -> ServiceResult<bool> {
        let mut reader = self.open()?;
        loop {
            let buffer = reader.fill_buf()?;
            if buffer.is_empty() {
                return Ok(true);
            }
            if !buffer.iter().all(u8::is_ascii_whitespace) {
                return Ok(false);
            }
            let n = buffer.len();
            reader.consume(n);
        }
    }
}

/// The format of an upload from its content type, else from its first character.
pub fn sniff(content_type: Option<&str>, bytes: &[u8]) -> Format {
    let content_type = content_type.unwrap_or_default().to_ascii_lowercase();
    if content_type.contains("csv") {
        return Format::Csv;
    }
    if content_type.contains("json") {
        return Format::Json;
    }
    let first = bytes
        .iter()
        .copied()
        .find(|b| !b.is_ascii_whitespace() && !matches!(b, 0xEF | 0xBB | 0xBF));
    if first == Some(b'{') {
        Format::Json
    } else {
        Format::Csv
    }
}

// --- The database, on the server or in the CLI --------------------------------------------

/// Where an import reads and writes: the server's shared database, where other people's
/// writes come between the import's transactions, or the CLI's one connection.
pub trait ImportDb {
    fn read<T, F>(&self, f: F) -> ServiceResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ServiceResult<T> + Send + 'static;

    fn write<T, F>(&self, f: F) -> ServiceResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> ServiceResult<T> + Send + 'static;
}

/// The server's database, used from a blocking thread (`run` blocks).
pub struct OnServer {
    db: Db,
    runtime: tokio::runtime::Handle,
}

impl OnServer {
    /// For a thread the runtime started with `spawn_blocking`.
    pub fn new(db: Db, runtime: tokio::runtime::Handle) -> Self {
        OnServer { db, runtime }
    }
}

impl ImportDb for OnServer {
    fn read<T, F>(&self, f: F) -> ServiceResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ServiceResult<T> + Send + 'static,
    {
        self.runtime.block_on(self.db.read(f))
    }

    fn write<T, F>(&self, f: F) -> ServiceResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> ServiceResult<T> + Send + 'static,
    {
        self.runtime.block_on(self.db.write(f))
    }
}

/// One connection of its own (the CLI, with or without a server beside it).
pub struct OnConnection(pub RefCell<Connection>);

impl ImportDb for OnConnection {
    fn read<T, F>(&self, f: F) -> ServiceResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ServiceResult<T> + Send + 'static,
    {
        f(&self.0.borrow())
    }

    fn write<T, F>(&self, f: F) -> ServiceResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> ServiceResult<T> + Send + 'static,
    {
        f(&mut self.0.borrow_mut())
    }
}

// --- The import ----------------------------------------------------------------------------

/// Imports `source`, a file from `origin`, into the account, or (dry run) only answers what
/// that would do. Another app's file with rows that cannot be read imports nothing (409
/// `import_has_unreadable_rows`, listing them) until `skip_unreadable` says to leave them out.
#[allow(clippy::too_many_arguments)]
pub fn run_from(
    db: &impl ImportDb,
    user_id: i64,
    source: Source,
    origin: Origin,
    data_dir: &Path,
    dry_run: bool,
    skip_unreadable: bool,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<Summary> {
    let (source, report) = source.translated(origin, data_dir, now)?;
    if !report.unreadable.is_empty() && !dry_run && !skip_unreadable {
        let lines: Vec<String> = report.unreadable.iter().map(|u| u.line.to_string()).collect();
        let first = &report.unreadable[0];
        return Err(ServiceError::Conflict(
            Problem::new(
                ErrorCode::ImportHasUnreadableRows,
                format!(
                    "Nothing was imported: {} row(s) of the file cannot be read (line {}: {}). \
                     Import the rest without them (skip_unreadable=true; pillbox import --skip-unreadable), or mend the file",
                    report.unreadable.len(),
                    first.line,
                    first.reason
                ),
            )
            .with_param("count", report.unreadable.len())
            .with_param("lines", lines.join(", ")),
        ));
    }
    let mut summary = run(db, user_id, source, dry_run, horizon_days, now)?;
    summary.from = report;
    Ok(summary)
}

/// Imports `source` into the account, or (dry run) only answers what that would do. Every
/// refusal names what is wrong with the file (`import_invalid`). Blocks; on the server, run
/// it on a blocking thread.
pub fn run(
    db: &impl ImportDb,
    user_id: i64,
    source: Source,
    dry_run: bool,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<Summary> {
    let source = std::sync::Arc::new(source);
    let checking = source.clone();
    let checked = db.read(move |conn| check(conn, user_id, &checking, now))?;
    let mut summary = checked.summary.clone();
    summary.dry_run = dry_run;
    if dry_run {
        return Ok(summary);
    }
    let started = Stamp::from(now);
    let (new_people, new_medications) = (
        checked.resolution.new_people.len(),
        checked.resolution.new_medications.len(),
    );
    let (import_id, ids) = db.write(move |conn| {
        let tx = conn.transaction()?;
        let import_id = imports::begin(&tx, user_id, started)?;
        let ids = ReservedIds {
            first_person: reserve(&tx, Reserved::People, new_people)?,
            first_medication: reserve(&tx, Reserved::Medications, new_medications)?,
        };
        tx.commit()?;
        Ok((import_id, ids))
    })?;
    match stage_and_reveal(db, user_id, &source, checked, import_id, ids, horizon_days, now) {
        Ok(()) => Ok(summary),
        Err(e) => {
            // Nothing of it was seen; what was staged goes, a transaction at a time.
            while db.write(move |conn| Ok(imports::discard_some(conn, import_id, DISCARD_BATCH)?))? > 0 {}
            Err(e)
        }
    }
}

fn reserve(conn: &Connection, table: Reserved, count: usize) -> rusqlite::Result<i64> {
    if count == 0 {
        return Ok(0);
    }
    imports::reserve_ids(conn, table, count)
}

/// Deletes what imports left staged when the server stopped in the middle of them, a
/// transaction at a time; answers how many rows went.
pub fn discard_unfinished(conn: &Connection) -> ServiceResult<usize> {
    let mut discarded = 0;
    for import_id in imports::unfinished(conn)? {
        loop {
            let deleted = imports::discard_some(conn, import_id, DISCARD_BATCH)?;
            if deleted == 0 {
                break;
            }
            discarded += deleted;
        }
    }
    Ok(discarded)
}

/// The ids reserved for what the import makes.
#[derive(Clone, Copy)]
struct ReservedIds {
    first_person: i64,
    first_medication: i64,
}

impl ReservedIds {
    fn person(&self, id: Id) -> i64 {
        match id {
            Id::Existing(id) => id,
            Id::New(k) => self.first_person + k as i64,
        }
    }

    fn medication(&self, id: Id) -> i64 {
        match id {
            Id::Existing(id) => id,
            Id::New(k) => self.first_medication + k as i64,
        }
    }
}

/// Writes the entries the check decided to add, out of sight, then everything else and the
/// entries' visibility in one transaction.
#[allow(clippy::too_many_arguments)]
fn stage_and_reveal(
    db: &impl ImportDb,
    user_id: i64,
    source: &Source,
    checked: Checked,
    import_id: i64,
    ids: ReservedIds,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<()> {
    let Checked {
        plan,
        resolution,
        decisions,
        may_answer_from,
        ..
    } = checked;
    let created_at = Stamp::from(now);
    let mut batch: Vec<Entry> = Vec::with_capacity(STAGE_BATCH);
    // Doses recent enough to answer a reminder, with their new ids.
    let mut recent: Vec<Imported> = Vec::new();
    let mut attachments: Vec<(i64, i64, i64)> = Vec::new();
    // How many transactions staged the entries, and the longest hold of the writer.
    let held = std::cell::Cell::new((0_usize, Elapsed::ZERO));
    let flush = |batch: &mut Vec<Entry>, recent: &mut Vec<Imported>| -> ServiceResult<()> {
        let mut pending = std::mem::take(batch);
        while !pending.is_empty() {
            let (answering, rest, took) = db.write(move |conn| {
                let started = std::time::Instant::now();
                let ids = imports::stage(conn, import_id, user_id, &pending, STAGE_BUDGET)?;
                let took = started.elapsed();
                let answering: Vec<Imported> = ids
                    .iter()
                    .zip(&pending)
                    .filter(|(_, e)| e.taken >= may_answer_from)
                    .filter_map(|(&entry_id, e)| {
                        Some(Imported {
                            entry_id,
                            medication_id: e.medication_id?,
                            taken: e.taken,
                        })
                    })
                    .collect();
                pending.drain(..ids.len());
                Ok((answering, pending, took))
            })?;
            let (transactions, longest) = held.get();
            held.set((transactions + 1, longest.max(took)));
            recent.extend(answering);
            pending = rest;
        }
        Ok(())
    };
    entries(source, &plan, now, &mut |index, e| {
        let Some(target) = resolution.targets.get(&e.file_medication) else {
            return Ok(());
        };
        match decisions.get(index) {
            Some(Decision::Add) => {}
            Some(Decision::Attach(entry_id)) => {
                if let (Some(medication), true) = (target.medication, target.created) {
                    attachments.push((*entry_id, ids.medication(medication), ids.person(target.person)));
                }
                return Ok(());
            }
            _ => return Ok(()),
        }
        batch.push(Entry {
            id: 0,
            medication_id: target.medication.map(|m| ids.medication(m)),
            medication_name: target.name.clone(),
            medication_unit: target.unit.clone(),
            status: e.status.parse().unwrap_or(DoseStatus::Missed),
            taken: e.taken,
            quantity: e.quantity,
            dosage_unit: e.unit,
            dosage: e.note,
            affect_inventory: e.affect_inventory,
            // The file's stock count already has these doses in it.
            stock_used: Quantity::ZERO,
            dosage_id: None,
            created_at,
            person_id: ids.person(match e.file_person {
                Some(file) => resolution.person(Some(file)),
                None => target.person,
            }),
            logged_by: e.logged_by_name.map(|name| LoggedBy { user_id: None, name }),
        });
        if batch.len() >= STAGE_BATCH {
            flush(&mut batch, &mut recent)?;
        }
        Ok(())
    })?;
    flush(&mut batch, &mut recent)?;
    let shown = db.write(move |conn| {
        let started = std::time::Instant::now();
        let tx = conn.transaction()?;
        write_rest(&tx, user_id, plan, &resolution, ids, &attachments, now)?;
        imports::reveal(&tx, import_id, user_id)?;
        planner::plan_user_at(&tx, user_id, horizon_days, now)?;
        answer_reminders(&tx, user_id, recent)?;
        tx.commit()?;
        Ok(started.elapsed())
    })?;
    let (transactions, longest) = held.get();
    tracing::info!(
        user_id,
        "import: entries written in {transactions} transactions (the longest held the writer {} ms), shown in one of {} ms",
        longest.as_millis(),
        shown.as_millis()
    );
    Ok(())
}

/// Where one of the file's people or medications lands: a row the account has, or the
/// `k`-th of its kind this import makes (with an id reserved when it writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Id {
    Existing(i64),
    New(usize),
}

/// Where a file's medication lands in the account.
struct Target {
    /// None: the file's medication was deleted (its entries are kept under its name).
    medication: Option<Id>,
    /// The account's person the medication (and so its entries) belongs to.
    person: Id,
    name: String,
    unit: String,
    /// Made by this import: history kept from its deleted predecessor comes back to it.
    created: bool,
}

/// Where everything of the file lands, decided on a read connection.
struct Resolution {
    holder: i64,
    /// The file's people by their file id.
    person_of: HashMap<i64, Id>,
    /// Indexes into the file's people of those the import makes, in `Id::New` order.
    new_people: Vec<usize>,
    targets: HashMap<i64, Target>,
    /// Indexes into the file's medications of those the import makes, in `Id::New` order.
    new_medications: Vec<usize>,
}

impl Resolution {
    fn person(&self, file: Option<i64>) -> Id {
        file.and_then(|id| self.person_of.get(&id).copied())
            .unwrap_or(Id::Existing(self.holder))
    }
}

/// What the import does with one history entry of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Add,
    /// Already there.
    Skip,
    /// Already kept (this entry id) under the name of a medication deleted since.
    Attach(i64),
}

/// A file read and checked, with all the import will do decided, nothing written yet.
struct Checked {
    plan: Plan,
    resolution: Resolution,
    /// One for each history entry of the file, in its order.
    decisions: Vec<Decision>,
    /// Imported doses from this time on may answer a reminder.
    may_answer_from: Stamp,
    summary: Summary,
}

/// Reads and checks a file for an account, on a read connection, and decides what the
/// import does with each thing in it.
fn check(conn: &Connection, user_id: i64, source: &Source, now: DateTime<Utc>) -> ServiceResult<Checked> {
    if source.is_blank()? {
        return Err(rejected(
            ErrorCode::ImportInvalid,
            "The file is empty: choose a Pillbox export (.json) or a history CSV",
        ));
    }
    let checked = (|| {
        let plan = match source.format {
            Format::Json => plan_json(source.open()?, now)?,
            Format::Csv => plan_csv(conn, user_id, source.open()?, now)?,
        };
        let mut summary = Summary::default();
        let resolution = resolve(conn, user_id, &plan, &mut summary)?;
        let mut existing = existing_history(conn, user_id)?;
        let mut decisions = Vec::new();
        entries(source, &plan, now, &mut |index, e| {
            debug_assert_eq!(index, decisions.len());
            let decision = match resolution.targets.get(&e.file_medication) {
                Some(target) => decide(&mut existing, target, &e),
                None => Decision::Skip,
            };
            match decision {
                Decision::Add => summary.history.added += 1,
                _ => summary.history.skipped += 1,
            }
            decisions.push(decision);
            Ok(())
        })?;
        // A dose answers only a reminder due at most an hour after it; the reminders open
        // now, or (for a medication the import makes) planned from now on.
        let first_open = reminders::first_open(conn, user_id)?.map_or(now, |open| open.min(now));
        let may_answer_from = Stamp::from(first_open - chrono::Duration::days(1));
        Ok(Checked {
            plan,
            resolution,
            decisions,
            may_answer_from,
            summary,
        })
    })();
    checked.map_err(|e| match e {
        ServiceError::Invalid(p) => ServiceError::Invalid(Problem {
            code: ErrorCode::ImportInvalid,
            ..p
        }),
        other => other,
    })
}

/// Imported doses answer their reminders as doses logged in the app do (DESIGN §4): each
/// answers its medication's reminder nearest in time, planned before or by this import, so
/// Today shows the dose as handled and no reminder or repeat goes out for it. Oldest first,
/// so each dose answers its own slot.
fn answer_reminders(conn: &Connection, user_id: i64, mut imported: Vec<Imported>) -> ServiceResult<()> {
    // A dose answers only a reminder due at most an hour after it: older doses answer none.
    let Some(first_open) = reminders::first_open(conn, user_id)? else {
        return Ok(());
    };
    imported.retain(|i| i.taken.instant() + chrono::Duration::hours(1) >= first_open);
    imported.sort_by_key(|i| i.taken);
    for i in imported {
        reminders::answer(conn, user_id, i.medication_id, None, i.taken, i.entry_id)?;
    }
    Ok(())
}

/// An entry the import added, to answer its reminder with.
struct Imported {
    entry_id: i64,
    medication_id: i64,
    taken: Stamp,
}

/// Hands `each` every history entry of the file, checked, in the file's order.
fn entries(source: &Source, plan: &Plan, now: DateTime<Utc>, each: EachEntry<'_>) -> ServiceResult<()> {
    match source.format {
        Format::Json => json_entries(source.open()?, plan, now, each),
        Format::Csv => csv_entries(source.open()?, plan, now, each),
    }
}

// --- JSON ----------------------------------------------------------------------------------

/// Hands each value of a JSON list to `each` as it is read.
type EachValue<'a> = &'a mut dyn FnMut(usize, Value) -> ServiceResult<()>;

/// Reads an export's top-level object as a stream: every key but "history" as a value (they
/// are small), and the "history" list one entry at a time, handed to `each` (without one,
/// only counted). Answers the other keys, and how many entries "history" has (None without
/// that key).
fn read_export(
    reader: impl Read,
    each: Option<EachValue<'_>>,
) -> ServiceResult<(serde_json::Map<String, Value>, Option<usize>)> {
    let mut top = TopLevel {
        each,
        stopped: None,
        object: false,
        entries: None,
    };
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let read = (&mut deserializer)
        .deserialize_any(&mut top)
        .and_then(|rest| deserializer.end().map(|()| rest));
    match read {
        Ok(rest) => Ok((rest, top.entries)),
        Err(_) if top.stopped.is_some() => Err(top.stopped.take().unwrap_or_else(|| invalid("stopped"))),
        Err(e) if e.is_io() => Err(ServiceError::Io(e.into())),
        Err(e) if !top.object && e.is_data() => Err(invalid(
            "The file is not a Pillbox export: expected a JSON object",
        )),
        Err(e) => Err(invalid(format!(
            "The file is not valid JSON ({e}): choose a Pillbox export (.json) or a history CSV"
        ))),
    }
}

struct TopLevel<'a> {
    each: Option<EachValue<'a>>,
    /// Why `each` stopped the reading, when it did.
    stopped: Option<ServiceError>,
    /// The file is an object (so a later error is not about that).
    object: bool,
    entries: Option<usize>,
}

impl<'de> Visitor<'de> for &mut TopLevel<'_> {
    type Value = serde_json::Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        self.object = true;
        let mut rest = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "history" {
                let count = map.next_value_seed(HistoryList { top: &mut *self })?;
                self.entries = Some(count);
            } else {
                let value: Value = map.next_value()?;
                rest.insert(key, value);
            }
        }
        Ok(rest)
    }
}

/// The "history" value: a list read one entry at a time.
struct HistoryList<'t, 'a> {
    top: &'t mut TopLevel<'a>,
}

impl HistoryList<'_, '_> {
    fn not_a_list<E: de::Error>(self) -> Result<usize, E> {
        self.top.stopped = Some(invalid("\"history\" must be a list"));
        Err(E::custom("history is not a list"))
    }
}

impl<'de> DeserializeSeed<'de> for HistoryList<'_, '_> {
    type Value = usize;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for HistoryList<'_, '_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of history entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut index = 0;
        match self.top.each.as_deref_mut() {
            Some(each) => {
                while let Some(value) = seq.next_element::<Value>()? {
                    if let Err(e) = each(index, value) {
                        self.top.stopped = Some(e);
                        return Err(de::Error::custom("stopped"));
                    }
                    index += 1;
                }
            }
            None => {
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    index += 1;
                }
            }
        }
        Ok(index)
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<usize, A::Error> {
        self.not_a_list()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<usize, E> {
        self.not_a_list()
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<usize, E> {
        self.not_a_list()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<usize, E> {
        self.not_a_list()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<usize, E> {
        self.not_a_list()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<usize, E> {
        self.not_a_list()
    }

    fn visit_unit<E: de::Error>(self) -> Result<usize, E> {
        self.not_a_list()
    }
}

fn plan_json(reader: impl Read, now: DateTime<Utc>) -> ServiceResult<Plan> {
    let (mut file, entries) = read_export(reader, None)?;
    let version = file
        .get("version")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("The file has no \"version\": it is not a Pillbox export"))?;
    let readable = FORMAT_VERSION.split('.').next().unwrap_or("1");
    if version.split('.').next() != Some(readable) {
        return Err(invalid(format!(
            "The file is export version {version}; this Pillbox reads version {readable}.x files. \
             Upgrade Pillbox to import it"
        )));
    }
    let medications = list(&mut file, "medications")?;
    if entries.is_none() {
        return Err(invalid("The file has no \"history\" list"));
    }
    let people = match file.remove("people") {
        None => None,
        Some(Value::Array(items)) => Some(people_of(items)?),
        Some(_) => return Err(invalid("\"people\" must be a list")),
    };
    let person_ids: HashSet<i64> = people.iter().flatten().map(|p| p.id).collect();
    let known_person = |id: Option<i64>, at: String| match id {
        Some(id) if !person_ids.contains(&id) => Err(invalid(format!(
            "{at} points to person {id}, which is not in the file's people"
        ))),
        _ => Ok(id),
    };

    let mut plan = Plan {
        people: None,
        medications: Vec::with_capacity(medications.len()),
        settings: file.get("settings").map(settings_of).transpose()?,
        preferences: file
            .get("notificationPreferences")
            .map(|value| {
                let Value::Object(map) = value else {
                    return Err(invalid("notificationPreferences: expected an object"));
                };
                apply_preferences(map, &mut GlobalPrefs::default())?;
                Ok(map.clone())
            })
            .transpose()?,
        csv: None,
    };
    let mut ids = HashSet::new();
    for (i, value) in medications.into_iter().enumerate() {
        let m: MedicationFile =
            serde_json::from_value(value).map_err(|e| invalid(format!("medications[{i}]: {e}")))?;
        if !ids.insert(m.id) {
            return Err(invalid(format!(
                "medications[{i}]: the id {} is used by another medication in the file",
                m.id
            )));
        }
        let file_person = known_person(m.person_id, format!("medications[{i}]"))?;
        let mut new = medication_of(m, now).map_err(|e| invalid(format!("medications[{i}]: {e}")))?;
        new.file_person = file_person;
        plan.medications.push(new);
    }
    plan.people = people;
    Ok(plan)
}

/// The export's history entries, checked against its medications and people.
fn json_entries(
    reader: impl Read,
    plan: &Plan,
    now: DateTime<Utc>,
    each: EachEntry<'_>,
) -> ServiceResult<()> {
    let medications: HashSet<i64> = plan.medications.iter().map(|m| m.file_id).collect();
    let person_ids: HashSet<i64> = plan.people.iter().flatten().map(|p| p.id).collect();
    read_export(
        reader,
        Some(&mut |i, value| {
            let e: EntryFile =
                serde_json::from_value(value).map_err(|e| invalid(format!("history[{i}]: {e}")))?;
            let Some(medication) = e.medication_id else {
                return Err(invalid(format!("history[{i}]: medication_id is missing")));
            };
            if !medications.contains(&medication) {
                return Err(invalid(format!(
                    "history[{i}] points to medication {medication}, which is not in the file's medications"
                )));
            }
            if let Some(id) = e.person_id.filter(|id| !person_ids.contains(id)) {
                return Err(invalid(format!(
                    "history[{i}] points to person {id}, which is not in the file's people"
                )));
            }
            let logged_by_name = self::text(e.logged_by_name, MAX_NAME, "logged_by_name")
                .map_err(|e| invalid(format!("history[{i}]: {e}")))?;
            let mut entry = entry_of(
                medication,
                &e.taken,
                e.quantity,
                &e.unit,
                &e.status,
                e.note,
                e.affect_inventory,
                now,
            )
            .map_err(|e| invalid(format!("history[{i}]: {e}")))?;
            entry.file_person = e.person_id;
            entry.logged_by_name = Some(logged_by_name).filter(|n| !n.is_empty());
            each(i, entry)
        }),
    )?;
    Ok(())
}

/// The file's people, checked: names as the API takes them, ids unique, one account holder
/// at most.
fn people_of(items: Vec<Value>) -> ServiceResult<Vec<PersonFile>> {
    let mut ids = HashSet::new();
    let mut holders = 0;
    let mut checked = Vec::with_capacity(items.len());
    for (i, value) in items.into_iter().enumerate() {
        let mut p: PersonFile =
            serde_json::from_value(value).map_err(|e| invalid(format!("people[{i}]: {e}")))?;
        if !ids.insert(p.id) {
            return Err(invalid(format!(
                "people[{i}]: the id {} is used by another person in the file",
                p.id
            )));
        }
        p.name = super::people::person_name(&p.name, p.is_self)
            .map_err(|e| invalid(format!("people[{i}]: {e}")))?;
        if p.is_self {
            holders += 1;
            if holders > 1 {
                return Err(invalid(format!(
                    "people[{i}]: only one person can be the account holder (is_self)"
                )));
            }
        }
        checked.push(p);
    }
    Ok(checked)
}

fn list(file: &mut serde_json::Map<String, Value>, key: &str) -> ServiceResult<Vec<Value>> {
    match file.remove(key) {
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(invalid(format!("\"{key}\" must be a list"))),
        None => Err(invalid(format!("The file has no \"{key}\" list"))),
    }
}

fn text(value: Option<String>, max: usize, label: &str) -> Result<String, String> {
    limited_text(value.as_deref().unwrap_or_default(), max, label)
}

/// Checks one medication of the file the way the API checks a new one.
fn medication_of(m: MedicationFile, now: DateTime<Utc>) -> Result<NewMedication, String> {
    let name = text(Some(m.name), MAX_NAME, "Name")?;
    if name.is_empty() {
        return Err("Name is required".into());
    }
    let unit = units::canonical(&m.unit)?;
    if Frequency::parse(m.frequency.trim()).is_none() {
        return Err(format!("Frequency must be one of {}", Frequency::ALL.join(", ")));
    }
    let color = m
        .color
        .map(|c| c.trim().to_owned())
        .unwrap_or_else(|| "blue".into());
    if !COLORS.contains(&color.as_str()) {
        return Err(format!("Color must be one of {}", COLORS.join(", ")));
    }
    let icon = text(m.icon, MAX_SHORT_TEXT, "Icon")?;
    if !m.default_quantity.is_positive() {
        return Err("Please enter a valid positive number for the dosage amount".into());
    }
    let schedule = m.schedule.unwrap_or(super::export::ScheduleFile {
        times: Vec::new(),
        weekdays: Vec::new(),
        start_date: None,
        rules: Default::default(),
    });
    let times = schedule::parse_times(&schedule.times)?;
    let weekdays = schedule::parse_weekdays(&schedule.weekdays)?;
    let start_date = match schedule.start_date.as_deref().map(str::trim) {
        Some(date) => NaiveDate::parse_from_str(date, "%Y-%m-%d")
            .map_err(|_| "Start date must be written as YYYY-MM-DD".to_owned())?,
        None => now.date_naive(),
    };
    let frequency = Frequency::parse(m.frequency.trim()).unwrap_or(Frequency::Daily);
    schedule.rules.check(frequency, start_date)?;
    let now = Stamp::from(now);
    // The file's own times where it has them (an export writes both).
    let stamp = |t: Option<String>| t.and_then(|t| parse_instant(&t)).map(Stamp::from);
    let medication = Medication {
        id: 0,
        name,
        unit,
        frequency: m.frequency.trim().to_owned(),
        color,
        icon: if icon.is_empty() {
            DEFAULT_ICON.into()
        } else {
            icon
        },
        notes: text(m.notes, MAX_NOTES, "Notes")?,
        default_quantity: m.default_quantity,
        schedule_times: times.into_iter().map(schedule::format_time).collect(),
        schedule_weekdays: weekdays.iter().map(|d| d.number_from_monday()).collect(),
        start_date,
        rules: schedule.rules,
        // The account holder's until the file says whose it is.
        person_id: 0,
        // Carers are other accounts, not carried by an export.
        escalation: None,
        created_at: stamp(m.created_at).unwrap_or(now),
        updated_at: stamp(m.updated_at).unwrap_or(now),
    };
    let inventory = match m.inventory {
        Some(inv) => {
            let mut containers = Containers {
                inventory_type: inv.inventory_type,
                container_type: inv.container_type,
                container_quantity: inv.container_quantity,
                container_size: inv.container_size,
                container_unit: inv.container_unit,
                item_quantity: inv.item_quantity,
                item_strength: inv.item_strength,
                item_unit: inv.item_unit,
            };
            if inv.enabled {
                containers.validate()?;
                // A stock no dose can draw from would leave every dose unrecorded in stock.
                containers.check_dose_unit(&medication.unit)?;
            }
            for unit in [&mut containers.container_unit, &mut containers.item_unit]
                .into_iter()
                .flatten()
            {
                *unit = units::canonical(unit)?;
            }
            if inv.current_quantity < Quantity::ZERO {
                return Err("Current quantity cannot be negative".into());
            }
            if inv.reminder_threshold < Quantity::ZERO {
                return Err("Reminder threshold cannot be negative".into());
            }
            Some(Inventory {
                enabled: inv.enabled,
                containers,
                current_quantity: inv.current_quantity,
                reminder_threshold: inv.reminder_threshold,
                updated_at: now,
            })
        }
        None => None,
    };
    let prefs = match m.notification_preferences {
        Some(p) => {
            let delivery_methods = p.delivery_methods.as_deref().map(methods_of).transpose()?;
            if let Some(lead) = p.reminder_minutes_before {
                check_lead(lead).map_err(|e| e.to_string())?;
            }
            // The API's rule (trimmed, blank is none, a length limit), in the file's words.
            let custom_message = check_message(p.custom_message.as_deref())
                .map_err(|_| format!("Custom message must be at most {MAX_MESSAGE} characters"))?;
            Some(MedicationPrefs {
                delivery_methods,
                lead_minutes: p.reminder_minutes_before,
                custom_message,
            })
        }
        None => None,
    };
    let prescription = m
        .prescription
        .map(|p| -> Result<Prescription, String> {
            let mut checked = super::prescriptions::checked(p.input(), now.instant())
                .map_err(|e| format!("prescription: {e}"))?;
            checked.ordered_at = p
                .ordered_at
                .map(|t| {
                    parse_instant(&t).map(Stamp::from).ok_or_else(|| {
                        format!(
                            "prescription: ordered_at '{}' is not an RFC 3339 date and time",
                            t.trim()
                        )
                    })
                })
                .transpose()?;
            checked.updated_at = medication.updated_at;
            Ok(checked)
        })
        .transpose()?;
    let batches = m
        .batches
        .into_iter()
        .enumerate()
        .map(|(j, b)| {
            let fields = super::batches::checked_file(b.quantity, b.remaining, &b.expires_on, b.lot)
                .map_err(|e| format!("batches[{j}]: {e}"))?;
            let created_at = b
                .created_at
                .map(|t| {
                    parse_instant(&t).map(Stamp::from).ok_or_else(|| {
                        format!(
                            "batches[{j}]: created_at '{}' is not an RFC 3339 date and time",
                            t.trim()
                        )
                    })
                })
                .transpose()?;
            Ok((fields, created_at))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(NewMedication {
        file_id: m.id,
        file_person: None,
        archived: m.archived,
        medication,
        inventory,
        prefs,
        prescription,
        batches,
    })
}

/// Methods as a file names them. Channels (`channel:<id>`) are left out: the file carries no
/// channels, and an id names another account's (or instance's) channel; a list of channels
/// only becomes push.
fn methods_of(list: &[String]) -> Result<Vec<Method>, String> {
    let methods = check_methods(list).map_err(|e| e.to_string())?;
    let kept: Vec<Method> = methods
        .iter()
        .copied()
        .filter(|m| m.channel_id().is_none())
        .collect();
    Ok(if kept.is_empty() { vec![Method::Push] } else { kept })
}

// One parameter per column of an entry, and the time to check it against.
#[allow(clippy::too_many_arguments)]
fn entry_of(
    file_medication: i64,
    taken: &str,
    quantity: Quantity,
    unit: &str,
    status: &str,
    note: Option<String>,
    affect_inventory: bool,
    now: DateTime<Utc>,
) -> Result<NewEntry, String> {
    let status = match status.trim() {
        "taken" => "taken",
        "skipped" => "skipped",
        "missed" => "missed",
        other => return Err(format!("status '{other}' must be taken, skipped or missed")),
    };
    let instant = parse_instant(taken)
        .filter(|t| t.year() >= 1900)
        .ok_or_else(|| format!("time '{}' is not an RFC 3339 date and time", taken.trim()))?;
    if instant > now + chrono::Duration::seconds(FUTURE_SKEW_SECS) {
        return Err(format!(
            "the time {} is in the future; only doses that already happened can be imported",
            taken.trim()
        ));
    }
    if !quantity.is_positive() {
        return Err("Please enter a valid positive number for the dosage amount".into());
    }
    let note = Some(text(note, MAX_SHORT_TEXT, "Note")?).filter(|n| !n.is_empty());
    Ok(NewEntry {
        file_medication,
        file_person: None,
        logged_by_name: None,
        status,
        taken: Stamp::from(instant),
        quantity,
        unit: units::canonical(unit)?,
        note,
        affect_inventory,
    })
}

/// The file's settings, checked. `dataRetention` is never taken from a file: deleting
/// history is only ever the person's own choice in Settings, after they saw what goes.
fn settings_of(value: &Value) -> ServiceResult<SettingsPatch> {
    let Value::Object(map) = value else {
        return Err(invalid("settings: expected an object"));
    };
    let mut s = SettingsPatch::default();
    if let Some(tz) = map.get("timezone").and_then(Value::as_str) {
        tz.parse::<chrono_tz::Tz>()
            .map_err(|_| invalid(format!("settings: Unknown time zone '{tz}'")))?;
        s.timezone = Some(tz.to_owned());
    }
    if let Some(time) = map.get("defaultReminderTime").and_then(Value::as_str) {
        NaiveTime::parse_from_str(time, "%H:%M")
            .map_err(|_| invalid("settings: Default reminder time must be written as HH:MM"))?;
        s.default_reminder_time = Some(time.to_owned());
    }
    let choices: [(&str, &[&str]); 4] = [
        ("language", user_settings::LANGUAGES),
        ("dateFormat", user_settings::DATE_FORMATS),
        ("timeFormat", user_settings::TIME_FORMATS),
        ("theme", user_settings::THEMES),
    ];
    for (key, allowed) in choices {
        if let Some(v) = map.get(key) {
            match v.as_str() {
                Some(text) if allowed.contains(&text) => {
                    s.preferences.insert(key.into(), v.clone());
                }
                _ => {
                    return Err(invalid(format!(
                        "settings: {key} must be one of {}",
                        allowed.join(", ")
                    )));
                }
            }
        }
    }
    if let Some(v) = map.get("autoBackup") {
        let on = v
            .as_bool()
            .ok_or_else(|| invalid("settings: autoBackup must be true or false"))?;
        s.preferences.insert("autoBackup".into(), on.into());
    }
    Ok(s)
}

/// Applies the reminder preferences a file has over `p`, checking each.
fn apply_preferences(map: &serde_json::Map<String, Value>, p: &mut GlobalPrefs) -> ServiceResult<()> {
    let flag = |key: &str, target: &mut bool| -> ServiceResult<()> {
        if let Some(v) = map.get(key) {
            *target = v
                .as_bool()
                .ok_or_else(|| invalid(format!("notificationPreferences: {key} must be true or false")))?;
        }
        Ok(())
    };
    flag("email_notifications_enabled", &mut p.email_enabled)?;
    flag("push_notifications_enabled", &mut p.push_enabled)?;
    flag("notification_sound_enabled", &mut p.sound_enabled)?;
    flag("notification_vibration_enabled", &mut p.vibration_enabled)?;
    flag("reminders_enabled", &mut p.reminders_enabled)?;
    flag("hide_medication_names", &mut p.hide_medication_names)?;
    flag("email_fallback_enabled", &mut p.email_fallback)?;
    let number = |key: &str, range: std::ops::RangeInclusive<i64>, target: &mut i64| -> ServiceResult<()> {
        if let Some(v) = map.get(key) {
            *target = v.as_i64().filter(|n| range.contains(n)).ok_or_else(|| {
                invalid(format!(
                    "notificationPreferences: {key} must be a whole number from {} to {}",
                    range.start(),
                    range.end()
                ))
            })?;
        }
        Ok(())
    };
    number(
        "default_reminder_minutes_before",
        0..=MAX_LEAD_MINUTES,
        &mut p.lead_minutes,
    )?;
    number(
        "repeat_interval_minutes",
        1..=MAX_LEAD_MINUTES,
        &mut p.repeat_interval_minutes,
    )?;
    number("repeat_max", 0..=MAX_REPEATS, &mut p.repeat_max)?;
    if let Some(v) = map.get("default_delivery_methods") {
        let list: Vec<String> = serde_json::from_value(v.clone())
            .map_err(|_| invalid("notificationPreferences: default_delivery_methods must be a list"))?;
        p.delivery_methods =
            methods_of(&list).map_err(|e| invalid(format!("notificationPreferences: {e}")))?;
    }
    Ok(())
}

// --- CSV -----------------------------------------------------------------------------------

/// A cell as the export wrote it: the apostrophe that kept a formula from running goes.
fn cell(text: &str) -> &str {
    let text = text.trim();
    match text.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@']) => rest,
        _ => text,
    }
}

/// What reading a CSV's entries again needs: the person's zone, and the file medication
/// (and person) each row's medication name and person cell went to.
struct CsvKeys {
    tz: chrono_tz::Tz,
    by_name: HashMap<(String, String), (i64, Option<i64>)>,
}

/// A CSV file's rows with the columns found by name.
struct CsvRows<R: Read> {
    reader: csv::Reader<R>,
    headers: Vec<String>,
}

impl<R: Read> CsvRows<R> {
    fn open(reader: R) -> ServiceResult<Self> {
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
        let headers: Vec<String> = reader
            .headers()
            .map_err(csv_error)?
            .iter()
            .map(|h| h.trim().to_ascii_lowercase())
            .collect();
        Ok(CsvRows { reader, headers })
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    /// Hands `each` every row that is not blank, with its line number.
    fn for_each(
        &mut self,
        mut each: impl FnMut(usize, &dyn Fn(&str) -> String) -> ServiceResult<()>,
    ) -> ServiceResult<()> {
        let columns: HashMap<String, usize> = self
            .headers
            .iter()
            .enumerate()
            .map(|(i, h)| (h.clone(), i))
            .collect();
        let mut record = csv::StringRecord::new();
        let mut line = 1;
        loop {
            line += 1;
            let more = self.reader.read_record(&mut record).map_err(|e| match e.kind() {
                csv::ErrorKind::Utf8 { .. } | csv::ErrorKind::Io(_) => csv_error(e),
                _ => invalid(format!("line {line}: {e}")),
            })?;
            if !more {
                return Ok(());
            }
            if record.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            let get = |name: &str| {
                columns
                    .get(name)
                    .and_then(|&i| record.get(i))
                    .map(cell)
                    .unwrap_or_default()
                    .to_owned()
            };
            each(line, &get)?;
        }
    }
}

fn csv_error(e: csv::Error) -> ServiceError {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => {
            invalid("The CSV file is not UTF-8 text: save it from the spreadsheet as \"CSV UTF-8\"")
        }
        csv::ErrorKind::Io(_) => match e.into_kind() {
            csv::ErrorKind::Io(e) => ServiceError::Io(e),
            _ => invalid("The CSV file cannot be read"),
        },
        _ => invalid(format!("The CSV file cannot be read: {e}")),
    }
}

/// One row's entry, checked: its time from `taken_at`, else from `date` and `time` in the
/// person's zone.
fn csv_entry(
    get: &dyn Fn(&str) -> String,
    tz: chrono_tz::Tz,
    file_medication: i64,
    file_person: Option<i64>,
    now: DateTime<Utc>,
) -> Result<NewEntry, String> {
    let quantity = csv_quantity(&get("quantity"))?;
    let taken = match get("taken_at") {
        text if text.is_empty() => local_instant(tz, &get("date"), &get("time"))?,
        text => text,
    };
    let note = Some(get("note")).filter(|n| !n.is_empty());
    let mut entry = entry_of(
        file_medication,
        &taken,
        quantity,
        &get("unit"),
        &get("status"),
        note,
        true,
        now,
    )?;
    entry.file_person = file_person;
    let logged_by = self::text(Some(get("logged_by")), MAX_NAME, "logged_by")?;
    entry.logged_by_name = Some(logged_by).filter(|n| !n.is_empty());
    Ok(entry)
}

/// Reads the history CSV the export writes (or a spreadsheet with those columns). Rows
/// whose medication the account has are logged against it; other names become as-needed
/// medications.
fn plan_csv(conn: &Connection, user_id: i64, reader: impl Read, now: DateTime<Utc>) -> ServiceResult<Plan> {
    let mut rows = CsvRows::open(reader)?;
    let required = ["medication", "quantity", "unit", "status"];
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|c| rows.column(c).is_none())
        .collect();
    let no_time = rows.column("taken_at").is_none() && rows.column("date").is_none();
    if !missing.is_empty() || no_time {
        return Err(invalid(format!(
            "The CSV file needs the columns {} and taken_at (or date and time); missing: {}",
            required.join(", "),
            missing
                .iter()
                .copied()
                .chain(no_time.then_some("taken_at"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let tz = UserClock::at(conn, user_id, now)?.tz;
    let existing = medications::list(conn, user_id)?;
    let own_people = people::own(conn, user_id)?;
    // The people the rows name, as a file's people: the account's own by name (the account
    // holder as such), or new ones.
    let mut file_people: Vec<PersonFile> = Vec::new();
    let mut person_file = |name: &str, is_self: bool| -> i64 {
        let key = name.to_lowercase();
        if let Some(p) = file_people.iter().find(|p| p.name.to_lowercase() == key) {
            return p.id;
        }
        let id = file_people.len() as i64 + 1;
        file_people.push(PersonFile {
            id,
            name: name.to_owned(),
            is_self,
            archived: false,
        });
        id
    };
    // By medication name and person cell, lowercase.
    let mut by_name: HashMap<(String, String), (i64, Option<i64>)> = HashMap::new();
    let mut medications = Vec::new();
    rows.for_each(|line, get| {
        let at = |e: String| invalid(format!("line {line}: {e}"));
        let name = get("medication");
        if name.is_empty() {
            return Err(at("the medication's name is empty".into()));
        }
        let person = get("person");
        let key = (name.to_lowercase(), person.to_lowercase());
        let (file_id, file_person) = match by_name.get(&key) {
            Some(known) => *known,
            None => {
                let id = medications.len() as i64 + 1;
                let quantity = csv_quantity(&get("quantity")).map_err(at)?;
                // Without a person, a medication of that name of whoever's; with one, theirs.
                let named = own_people.iter().find(|p| p.name.to_lowercase() == key.1);
                let same = existing.iter().find(|m| {
                    m.name.to_lowercase() == key.0
                        && (person.is_empty() || named.is_some_and(|p| p.id == m.person_id))
                });
                let file_person = match (same, named) {
                    (Some(m), _) => own_people
                        .iter()
                        .find(|p| p.id == m.person_id)
                        .map(|p| person_file(&p.name, p.is_self)),
                    (None, Some(p)) => Some(person_file(&p.name, p.is_self)),
                    (None, None) if !person.is_empty() => {
                        let checked =
                            super::people::person_name(&person, false).map_err(|e| at(e.to_string()))?;
                        Some(person_file(&checked, false))
                    }
                    (None, None) => None,
                };
                let file = match same {
                    Some(m) => MedicationFile {
                        color: Some(m.color.clone()),
                        icon: Some(m.icon.clone()),
                        ..MedicationFile::bare(id, &m.name, &m.unit, &m.frequency, m.default_quantity)
                    },
                    // A deleted medication's history comes back under its name, not as a
                    // new medication.
                    None => match history::deleted_medication_unit(conn, user_id, &name)? {
                        Some(archived_unit) => MedicationFile {
                            archived: true,
                            ..MedicationFile::bare(id, &name, &archived_unit, "as_needed", quantity)
                        },
                        None => MedicationFile::bare(id, &name, &get("unit"), "as_needed", quantity),
                    },
                };
                let mut new = medication_of(file, now).map_err(at)?;
                new.file_person = file_person;
                medications.push(new);
                by_name.insert(key, (id, file_person));
                (id, file_person)
            }
        };
        csv_entry(get, tz, file_id, file_person, now).map_err(at)?;
        Ok(())
    })?;
    Ok(Plan {
        people: Some(file_people).filter(|p| !p.is_empty()),
        medications,
        settings: None,
        preferences: None,
        csv: Some(CsvKeys { tz, by_name }),
    })
}

/// The CSV's entries again, each to the file medication the plan gave its name.
fn csv_entries(reader: impl Read, plan: &Plan, now: DateTime<Utc>, each: EachEntry<'_>) -> ServiceResult<()> {
    let Some(keys) = &plan.csv else {
        return Err(invalid("The CSV file was not read before its entries"));
    };
    let mut rows = CsvRows::open(reader)?;
    let mut index = 0;
    rows.for_each(|line, get| {
        let at = |e: String| invalid(format!("line {line}: {e}"));
        let key = (get("medication").to_lowercase(), get("person").to_lowercase());
        let Some(&(file_id, file_person)) = keys.by_name.get(&key) else {
            return Err(at("the file changed while it was imported".into()));
        };
        let entry = csv_entry(get, keys.tz, file_id, file_person, now).map_err(at)?;
        each(index, entry)?;
        index += 1;
        Ok(())
    })
}

/// A spreadsheet's number: `2.5`, or `2,5` where a comma is the decimal mark. A comma that
/// could be a thousands separator (`1,000`) is refused rather than guessed.
fn csv_quantity(text: &str) -> Result<Quantity, String> {
    let not_a_number = || format!("quantity '{text}' is not a number");
    let normalized = match text.split_once(',') {
        None => text.to_owned(),
        Some((whole, fraction)) if !text.contains('.') && !fraction.contains(',') && fraction.len() != 3 => {
            format!("{whole}.{fraction}")
        }
        Some(_) => {
            return Err(format!(
                "quantity '{text}' is ambiguous: write it without thousands separators, e.g. 1000 or 2.5"
            ));
        }
    };
    let value = normalized.trim().parse::<f64>().map_err(|_| not_a_number())?;
    Quantity::from_f64(value).map_err(|_| not_a_number())
}

/// A local date (YYYY-MM-DD) and time (HH:MM, default 00:00) in the person's zone.
fn local_instant(tz: chrono_tz::Tz, date: &str, time: &str) -> Result<String, String> {
    let date = NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .ok()
        .filter(|d| (1900..=9999).contains(&d.year()))
        .ok_or_else(|| format!("date '{date}' must be written as YYYY-MM-DD"))?;
    let time = if time.is_empty() {
        NaiveTime::MIN
    } else {
        NaiveTime::parse_from_str(time, "%H:%M")
            .or_else(|_| NaiveTime::parse_from_str(time, "%H:%M:%S"))
            .map_err(|_| format!("time '{time}' must be written as HH:MM"))?
    };
    let instant = tz
        .from_local_datetime(&date.and_time(time))
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|| crate::domain::planner::resolve(tz, date.and_time(time)));
    Ok(clock::stamp(instant))
}

// --- Writing -------------------------------------------------------------------------------

/// What makes two history entries the same dose.
#[derive(Hash, PartialEq, Eq, Clone)]
struct DoseKey {
    taken: Stamp,
    status: &'static str,
    quantity: Quantity,
    unit: String,
}

impl DoseKey {
    fn of(e: &NewEntry) -> DoseKey {
        DoseKey {
            taken: e.taken,
            status: e.status,
            quantity: e.quantity,
            unit: e.unit.clone(),
        }
    }
}

/// The entries the account had before this import: a medication's own, and those kept
/// under a name after their medication was deleted. Counted, so that two doses of the same
/// size at the same minute in a file are both imported once each.
struct Existing {
    live: HashMap<i64, HashMap<DoseKey, usize>>,
    archived: HashMap<String, HashMap<DoseKey, Vec<i64>>>,
}

fn status_of(text: &str) -> &'static str {
    match text {
        "taken" => "taken",
        "skipped" => "skipped",
        _ => "missed",
    }
}

fn existing_history(conn: &Connection, user_id: i64) -> rusqlite::Result<Existing> {
    let mut existing = Existing {
        live: HashMap::new(),
        archived: HashMap::new(),
    };
    history::for_each_dose(conn, user_id, |dose| {
        let key = DoseKey {
            taken: dose.taken,
            status: status_of(&dose.status),
            quantity: dose.quantity,
            unit: dose.dosage_unit,
        };
        match dose.medication_id {
            Some(medication) => {
                *existing
                    .live
                    .entry(medication)
                    .or_default()
                    .entry(key)
                    .or_default() += 1
            }
            None => existing
                .archived
                .entry(dose.medication_name.to_lowercase())
                .or_default()
                .entry(key)
                .or_default()
                .push(dose.id),
        }
    })?;
    Ok(existing)
}

/// Decides where the file's people and medications land, as the import will write them:
/// the file's account holder is the importing account's own person; another person is the
/// account's person of that name, or a new one. Each medication of the file matches at most
/// one the account had before, by name, unit and person; two alike in the file stay two.
fn resolve(conn: &Connection, user_id: i64, plan: &Plan, summary: &mut Summary) -> ServiceResult<Resolution> {
    let holder = people::self_person(conn, user_id)?;
    let mut resolution = Resolution {
        holder,
        person_of: HashMap::new(),
        new_people: Vec::new(),
        targets: HashMap::new(),
        new_medications: Vec::new(),
    };
    summary.settings.replaced =
        settings_change(conn, user_id, plan)?.is_some() || preferences_change(conn, user_id, plan)?.is_some();
    if let Some(file) = &plan.people {
        let mut unclaimed: Vec<(i64, String)> = people::own(conn, user_id)?
            .into_iter()
            .filter(|p| !p.is_self)
            .map(|p| (p.id, p.name.to_lowercase()))
            .collect();
        for (index, p) in file.iter().enumerate() {
            if p.is_self {
                resolution.person_of.insert(p.id, Id::Existing(holder));
                continue;
            }
            let wanted = p.name.to_lowercase();
            let id = match unclaimed.iter().position(|(_, name)| *name == wanted) {
                Some(at) => {
                    summary.people.skipped += 1;
                    Id::Existing(unclaimed.swap_remove(at).0)
                }
                None => {
                    summary.people.added += 1;
                    resolution.new_people.push(index);
                    Id::New(resolution.new_people.len() - 1)
                }
            };
            resolution.person_of.insert(p.id, id);
        }
    }
    let mut unclaimed: Vec<(i64, String, String, i64)> = medications::list(conn, user_id)?
        .into_iter()
        .map(|m| (m.id, m.name.to_lowercase(), m.unit, m.person_id))
        .collect();
    for (index, new) in plan.medications.iter().enumerate() {
        let person = resolution.person(new.file_person);
        let m = &new.medication;
        let target = |medication, created| Target {
            medication,
            person,
            name: m.name.clone(),
            unit: m.unit.clone(),
            created,
        };
        if new.archived {
            resolution.targets.insert(new.file_id, target(None, false));
            continue;
        }
        let wanted = m.name.to_lowercase();
        let claimed = match person {
            Id::Existing(owner) => unclaimed
                .iter()
                .position(|(_, name, unit, of)| *name == wanted && *unit == m.unit && *of == owner),
            Id::New(_) => None,
        };
        let (prescriptions, batches) = (usize::from(new.prescription.is_some()), new.batches.len());
        if let Some(at) = claimed {
            let (id, _, _, _) = unclaimed.swap_remove(at);
            summary.medications.skipped += 1;
            summary.prescriptions.skipped += prescriptions;
            summary.batches.skipped += batches;
            resolution
                .targets
                .insert(new.file_id, target(Some(Id::Existing(id)), false));
            continue;
        }
        summary.medications.added += 1;
        summary.prescriptions.added += prescriptions;
        summary.batches.added += batches;
        if Frequency::parse(&m.frequency).is_some_and(|f| f != Frequency::AsNeeded) {
            summary.schedules.added += 1;
        }
        resolution.new_medications.push(index);
        let id = Id::New(resolution.new_medications.len() - 1);
        resolution.targets.insert(new.file_id, target(Some(id), true));
    }
    Ok(resolution)
}

/// What one entry of the file does, against the entries the account had before the import.
fn decide(existing: &mut Existing, target: &Target, e: &NewEntry) -> Decision {
    let key = DoseKey::of(e);
    if let Some(Id::Existing(id)) = target.medication
        && let Some(left) = existing.live.get_mut(&id).and_then(|keys| keys.get_mut(&key))
        && *left > 0
    {
        *left -= 1;
        return Decision::Skip;
    }
    // Already kept under the name of a medication deleted since.
    if let Some(entry_id) = existing
        .archived
        .get_mut(&target.name.to_lowercase())
        .and_then(|keys| keys.get_mut(&key))
        .and_then(Vec::pop)
    {
        return Decision::Attach(entry_id);
    }
    Decision::Add
}

/// The account's settings with the file's over them, when that changes them.
fn settings_change(
    conn: &Connection,
    user_id: i64,
    plan: &Plan,
) -> ServiceResult<Option<settings::UserSettings>> {
    let Some(patch) = &plan.settings else {
        return Ok(None);
    };
    let current = settings::get(conn, user_id)?;
    let mut merged = current.clone();
    if let Some(tz) = &patch.timezone {
        merged.timezone = tz.clone();
    }
    if let Some(time) = &patch.default_reminder_time {
        merged.default_reminder_time = time.clone();
    }
    merged.preferences.extend(patch.preferences.clone());
    let changed = (
        &merged.timezone,
        &merged.default_reminder_time,
        &merged.preferences,
    ) != (
        &current.timezone,
        &current.default_reminder_time,
        &current.preferences,
    );
    Ok(changed.then_some(merged))
}

/// The account's reminder preferences with the file's over them, when that changes them.
fn preferences_change(conn: &Connection, user_id: i64, plan: &Plan) -> ServiceResult<Option<GlobalPrefs>> {
    let Some(map) = &plan.preferences else {
        return Ok(None);
    };
    let current = notify_prefs::global(conn, user_id)?;
    let mut merged = current.clone();
    apply_preferences(map, &mut merged)?;
    Ok((merged != current).then_some(merged))
}

/// Everything but the staged entries, in the import's last transaction: settings, the new
/// people and medications with their reserved ids, and kept entries going back to the
/// medication that came back.
fn write_rest(
    conn: &Connection,
    user_id: i64,
    plan: Plan,
    resolution: &Resolution,
    ids: ReservedIds,
    attachments: &[(i64, i64, i64)],
    now: DateTime<Utc>,
) -> ServiceResult<()> {
    if let Some(merged) = settings_change(conn, user_id, &plan)? {
        settings::save(conn, user_id, &merged)?;
    }
    if let Some(merged) = preferences_change(conn, user_id, &plan)? {
        notify_prefs::save_global(conn, user_id, &merged)?;
    }
    let stamp = Stamp::from(now);
    if let Some(file) = &plan.people {
        for (k, &index) in resolution.new_people.iter().enumerate() {
            let p = &file[index];
            let id = people::insert_as(conn, Some(ids.person(Id::New(k))), user_id, &p.name, stamp)?;
            if p.archived {
                people::set_archived(conn, id, Some(stamp), stamp)?;
            }
        }
    }
    let mut medications_of_file = plan.medications;
    for (k, &index) in resolution.new_medications.iter().enumerate() {
        let new = &mut medications_of_file[index];
        new.medication.person_id = ids.person(resolution.person(new.file_person));
        let m = &new.medication;
        let id = medications::insert_as(conn, Some(ids.medication(Id::New(k))), user_id, m)?;
        // `insert` stamps both times with created_at; keep the file's last change too.
        medications::set_updated_at(conn, id, m.updated_at)?;
        if !new.batches.is_empty() {
            // Batches are the stock: its count is what those not expired hold on the
            // account's day, as the batches' own changes keep it (a medication without stock
            // gets stock with its first batch, as through the API).
            let today = UserClock::at(conn, user_id, now)?.today();
            let mut counted = Quantity::ZERO;
            for (fields, created_at) in &mut new.batches {
                fields.expired = stock::batch_expired(fields.expires_on, today);
                if !fields.expired {
                    counted = counted + fields.remaining;
                }
                batches::insert(conn, id, fields, created_at.unwrap_or(stamp))?;
            }
            let first = new.batches[0].0.quantity;
            let inventory = new.inventory.get_or_insert_with(|| Inventory {
                enabled: true,
                containers: super::batches::first_containers(&new.medication, first),
                current_quantity: Quantity::ZERO,
                reminder_threshold: Quantity::ZERO,
                updated_at: stamp,
            });
            if inventory.enabled {
                inventory.current_quantity = counted;
            }
        }
        if let Some(p) = new.prescription.take() {
            prescriptions::save(
                conn,
                &Prescription {
                    medication_id: id,
                    ..p
                },
            )?;
        }
        if let Some(inv) = &new.inventory {
            medications::save_inventory(conn, id, inv)?;
            if inv.enabled {
                medications::record_ledger(
                    conn,
                    id,
                    inv.current_quantity,
                    inv.current_quantity,
                    StockChange::Initial,
                    Some("Imported"),
                    None,
                    stamp,
                )?;
            }
        }
        if let Some(prefs) = &new.prefs {
            notify_prefs::save_for_medication(conn, id, prefs)?;
        }
    }
    for &(entry_id, medication_id, person_id) in attachments {
        // It goes to the new medication's person too: who may see an entry follows it.
        history::attach_to_medication(conn, user_id, entry_id, medication_id, person_id)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An export's plan and its entries, checked as an import reads them.
    fn checked_entries(file: &[u8]) -> ServiceResult<(Plan, Vec<NewEntry>)> {
        let now = Utc::now();
        let plan = plan_json(file, now)?;
        let mut entries = Vec::new();
        json_entries(file, &plan, now, &mut |_, e| {
            entries.push(e);
            Ok(())
        })?;
        Ok((plan, entries))
    }

    #[test]
    fn imported_methods_leave_out_channels_the_file_cannot_carry() {
        let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            methods_of(&words(&["email", "channel:7"])),
            Ok(vec![Method::Email])
        );
        assert_eq!(methods_of(&words(&["channel:7"])), Ok(vec![Method::Push]));
        assert!(methods_of(&words(&["fax"])).is_err());
    }

    #[test]
    fn sniffs_the_format() {
        assert_eq!(sniff(Some("application/json"), b"x"), Format::Json);
        assert_eq!(sniff(Some("text/csv; charset=utf-8"), b"{"), Format::Csv);
        assert_eq!(sniff(None, b"  {\"version\""), Format::Json);
        assert_eq!(sniff(Some("application/octet-stream"), b"date,time"), Format::Csv);
    }

    #[test]
    fn cells_lose_the_formula_guard_only() {
        assert_eq!(cell("'=1+2"), "=1+2");
        assert_eq!(cell("'quoted"), "'quoted");
        assert_eq!(cell(" Aspirin "), "Aspirin");
    }

    #[test]
    fn spreadsheet_numbers_with_a_decimal_comma_but_no_guessed_thousands() {
        assert_eq!(csv_quantity("2,5"), Ok(Quantity::from_f64(2.5).unwrap()));
        assert_eq!(csv_quantity("2.5"), Ok(Quantity::from_f64(2.5).unwrap()));
        assert_eq!(csv_quantity("1000"), Ok(Quantity::whole(1000)));
        assert!(csv_quantity("1,000").unwrap_err().contains("ambiguous"));
        assert!(csv_quantity("1,000.5").is_err());
        assert!(csv_quantity("lots").is_err());
    }

    #[test]
    fn a_newer_major_version_is_refused_by_name() {
        let Err(e) = plan_json(
            &br#"{"version":"2.0.0","medications":[],"history":[]}"#[..],
            Utc::now(),
        ) else {
            panic!("accepted")
        };
        assert!(e.to_string().contains("version 2.0.0"), "{e}");
    }

    #[test]
    fn history_must_point_into_the_file() {
        let file = br#"{"version":"1.0.0","medications":[],
            "history":[{"medication_id":4,"quantity":1,"unit":"mg","status":"taken","taken":"2024-01-01T08:00:00Z"}]}"#;
        let Err(e) = checked_entries(file) else {
            panic!("accepted")
        };
        assert!(e.to_string().contains("medication 4"), "{e}");
    }

    #[test]
    fn people_are_checked_and_must_be_in_the_file() {
        let refused = |file: &str| match checked_entries(file.as_bytes()) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted {file}"),
        };
        let medication =
            r#"{"id":1,"name":"Aspirin","unit":"mg","frequency":"daily","default_quantity":1,"person_id":7}"#;
        assert!(
            refused(&format!(
                r#"{{"version":"1.1.0","medications":[{medication}],"history":[]}}"#
            ))
            .contains("medications[0] points to person 7"),
        );
        let entry = r#"{"medication_id":1,"quantity":1,"unit":"mg","status":"taken","taken":"2024-01-01T08:00:00Z","person_id":9}"#;
        let people = r#"[{"id":7,"name":"Jo"}]"#;
        assert!(
            refused(&format!(
                r#"{{"version":"1.1.0","people":{people},"medications":[{medication}],"history":[{entry}]}}"#
            ))
            .contains("history[0] points to person 9"),
        );
        let two_holders = r#"[{"id":1,"name":"","is_self":true},{"id":2,"name":"B","is_self":true}]"#;
        assert!(
            refused(&format!(
                r#"{{"version":"1.1.0","people":{two_holders},"medications":[],"history":[]}}"#
            ))
            .contains("people[1]: only one person"),
        );
        assert!(
            refused(r#"{"version":"1.1.0","people":[{"id":1,"name":" "}],"medications":[],"history":[]}"#)
                .contains("people[0]: Please enter the person's name"),
        );
        assert!(
            refused(r#"{"version":"1.1.0","people":{},"medications":[],"history":[]}"#)
                .contains("\"people\" must be a list"),
        );
        let file = format!(
            r#"{{"version":"1.1.0","people":{people},"medications":[{medication}],
                "history":[{{"medication_id":1,"quantity":1,"unit":"mg","status":"taken","taken":"2024-01-01T08:00:00Z","person_id":7,"logged_by_name":" Kim "}}]}}"#
        );
        let Ok((plan, entries)) = checked_entries(file.as_bytes()) else {
            panic!("refused")
        };
        assert_eq!(plan.medications[0].file_person, Some(7));
        assert_eq!(entries[0].file_person, Some(7));
        assert_eq!(entries[0].logged_by_name.as_deref(), Some("Kim"));
    }
}

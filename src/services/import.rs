//! Import: an export file (JSON) or a history CSV brought into one account.
//!
//! The whole file is checked before anything is written, and written in one transaction:
//! all of it or none. A dry run goes through exactly the same steps and rolls back, so its
//! counts are what the real import will do. Importing the same file twice adds nothing the
//! second time: a medication with the same name and unit is the same medication, and a
//! history entry of the same medication, instant and status is the same entry. Imported
//! history never moves stock (the file's stock count is taken as it is), and reminders are
//! planned again afterwards.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, TimeZone, Utc};
use rusqlite::Connection;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::export::{EntryFile, FORMAT_VERSION, MedicationFile, PersonFile, parse_instant};
use super::{ErrorCode, Problem, ServiceError, ServiceResult, invalid, rejected, user_settings};
use crate::clock;
use crate::db::Stamp;
use crate::domain::dose::DoseStatus;
use crate::domain::medication::{
    COLORS, DEFAULT_ICON, FUTURE_SKEW_SECS, MAX_LEAD_MINUTES, MAX_MESSAGE, MAX_NAME, MAX_NOTES, MAX_REPEATS,
    MAX_SHORT_TEXT, limited_text,
};
use crate::domain::notification::{check_lead, check_message, check_methods};
use crate::domain::quantity::Quantity;
use crate::domain::schedule::{self, Frequency};
use crate::domain::stock::Containers;
use crate::domain::units;
use crate::services::planner::{self, UserClock};
use crate::store::history::{self, Entry, LoggedBy};
use crate::store::medications::{self, Inventory, Medication, StockChange};
use crate::store::notify_prefs::{self, GlobalPrefs, MedicationPrefs, Method};
use crate::store::{people, reminders, settings};

/// The largest file accepted (a 100,000-entry export is about 20 MiB).
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;

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
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Summary {
    pub dry_run: bool,
    /// People other than the account holder (the file's account holder is the importing
    /// account's own person): added, or already there by name.
    pub people: Counts,
    pub medications: Counts,
    pub schedules: Added,
    pub history: Counts,
    pub settings: Replaced,
}

/// A file checked and ready to write.
struct Plan {
    /// The file's people; None for a file from before the care circle (all the holder's).
    people: Option<Vec<PersonFile>>,
    medications: Vec<NewMedication>,
    history: Vec<NewEntry>,
    settings: Option<SettingsPatch>,
    /// The file's reminder preferences (checked); only the fields it has are applied.
    preferences: Option<serde_json::Map<String, Value>>,
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

/// A file read and checked, not yet written.
pub struct Checked(Plan);

/// Reads and checks a file for an account. Needs only a read connection (the CSV matches
/// names against the account's medications and reads times in the person's zone), so a
/// large file is parsed without holding up anyone's writes.
/// Every refusal names what is wrong with the file (`import_invalid`).
pub fn check(
    conn: &Connection,
    user_id: i64,
    bytes: &[u8],
    format: Format,
    now: DateTime<Utc>,
) -> ServiceResult<Checked> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(rejected(
            ErrorCode::ImportInvalid,
            "The file is empty: choose a Pillbox export (.json) or a history CSV",
        ));
    }
    let plan = match format {
        Format::Json => plan_json(bytes, now),
        Format::Csv => plan_csv(conn, user_id, bytes, now),
    };
    plan.map(Checked).map_err(|e| match e {
        ServiceError::Invalid(p) => ServiceError::Invalid(Problem {
            code: ErrorCode::ImportInvalid,
            ..p
        }),
        other => other,
    })
}

/// Writes a checked file into the account in one transaction; with `dry_run`, rolls it
/// back and only counts.
pub fn apply(
    conn: &mut Connection,
    user_id: i64,
    checked: Checked,
    dry_run: bool,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<Summary> {
    let tx = conn.transaction()?;
    let mut imported = Vec::new();
    let mut summary = write(&tx, user_id, checked.0, &mut imported, now)?;
    summary.dry_run = dry_run;
    if dry_run {
        tx.rollback()?;
    } else {
        planner::plan_user_at(&tx, user_id, horizon_days, now)?;
        answer_reminders(&tx, user_id, imported)?;
        tx.commit()?;
    }
    Ok(summary)
}

/// An entry the import added, to answer its reminder with.
struct Imported {
    entry_id: i64,
    medication_id: i64,
    taken: Stamp,
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
        reminders::answer(
            conn,
            user_id,
            i.medication_id,
            None,
            &i.taken.to_string(),
            i.entry_id,
        )?;
    }
    Ok(())
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

// --- JSON ----------------------------------------------------------------------------------

fn plan_json(bytes: &[u8], now: DateTime<Utc>) -> ServiceResult<Plan> {
    let text = std::str::from_utf8(bytes).map_err(|_| {
        invalid("The file is not UTF-8 text: choose a Pillbox export (.json) or a history CSV")
    })?;
    let text = text.trim_start_matches('\u{feff}');
    let value: Value = serde_json::from_str(text).map_err(|e| {
        invalid(format!(
            "The file is not valid JSON ({e}): choose a Pillbox export (.json) or a history CSV"
        ))
    })?;
    let Value::Object(mut file) = value else {
        return Err(invalid(
            "The file is not a Pillbox export: expected a JSON object",
        ));
    };
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
    let history = list(&mut file, "history")?;
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
        people,
        medications: Vec::with_capacity(medications.len()),
        history: Vec::with_capacity(history.len()),
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
    for (i, value) in history.into_iter().enumerate() {
        let e: EntryFile =
            serde_json::from_value(value).map_err(|e| invalid(format!("history[{i}]: {e}")))?;
        let Some(medication) = e.medication_id else {
            return Err(invalid(format!("history[{i}]: medication_id is missing")));
        };
        if !ids.contains(&medication) {
            return Err(invalid(format!(
                "history[{i}] points to medication {medication}, which is not in the file's medications"
            )));
        }
        let file_person = known_person(e.person_id, format!("history[{i}]"))?;
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
        entry.file_person = file_person;
        entry.logged_by_name = Some(logged_by_name).filter(|n| !n.is_empty());
        plan.history.push(entry);
    }
    Ok(plan)
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
    Ok(NewMedication {
        file_id: m.id,
        file_person: None,
        archived: m.archived,
        medication,
        inventory,
        prefs,
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

/// Reads the history CSV the export writes (or a spreadsheet with those columns). Rows
/// whose medication the account has are logged against it; other names become as-needed
/// medications.
fn plan_csv(conn: &Connection, user_id: i64, bytes: &[u8], now: DateTime<Utc>) -> ServiceResult<Plan> {
    let text = std::str::from_utf8(bytes).map_err(|_| {
        invalid("The CSV file is not UTF-8 text: save it from the spreadsheet as \"CSV UTF-8\"")
    })?;
    let text = text.trim_start_matches('\u{feff}');
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| invalid(format!("The CSV file cannot be read: {e}")))?
        .iter()
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let required = ["medication", "quantity", "unit", "status"];
    let missing: Vec<&str> = required.iter().copied().filter(|c| column(c).is_none()).collect();
    if !missing.is_empty() || (column("taken_at").is_none() && column("date").is_none()) {
        return Err(invalid(format!(
            "The CSV file needs the columns {} and taken_at (or date and time); missing: {}",
            required.join(", "),
            missing
                .iter()
                .copied()
                .chain((column("taken_at").is_none() && column("date").is_none()).then_some("taken_at"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let clock = UserClock::at(conn, user_id, now)?;
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
    let mut plan = Plan {
        people: None,
        medications: Vec::new(),
        history: Vec::new(),
        settings: None,
        preferences: None,
    };
    for (index, record) in reader.records().enumerate() {
        let line = index + 2;
        let record = record.map_err(|e| invalid(format!("line {line}: {e}")))?;
        let get = |name: &str| {
            column(name)
                .and_then(|i| record.get(i))
                .map(cell)
                .unwrap_or_default()
        };
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let at = |e: String| invalid(format!("line {line}: {e}"));
        let name = get("medication");
        if name.is_empty() {
            return Err(at("the medication's name is empty".into()));
        }
        let quantity = csv_quantity(get("quantity")).map_err(at)?;
        let unit = get("unit");
        let taken = match get("taken_at") {
            "" => local_instant(&clock, get("date"), get("time")).map_err(at)?,
            text => text.to_owned(),
        };
        let person = get("person");
        let key = (name.to_lowercase(), person.to_lowercase());
        let (file_id, file_person) = match by_name.get(&key) {
            Some(known) => *known,
            None => {
                let id = plan.medications.len() as i64 + 1;
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
                            super::people::person_name(person, false).map_err(|e| at(e.to_string()))?;
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
                    None => match history::deleted_medication_unit(conn, user_id, name)? {
                        Some(archived_unit) => MedicationFile {
                            archived: true,
                            ..MedicationFile::bare(id, name, &archived_unit, "as_needed", quantity)
                        },
                        None => MedicationFile::bare(id, name, unit, "as_needed", quantity),
                    },
                };
                let mut new = medication_of(file, now).map_err(at)?;
                new.file_person = file_person;
                plan.medications.push(new);
                by_name.insert(key, (id, file_person));
                (id, file_person)
            }
        };
        let note = Some(get("note").to_owned()).filter(|n| !n.is_empty());
        let mut entry =
            entry_of(file_id, &taken, quantity, unit, get("status"), note, true, now).map_err(at)?;
        entry.file_person = file_person;
        let logged_by = self::text(Some(get("logged_by").to_owned()), MAX_NAME, "logged_by").map_err(at)?;
        entry.logged_by_name = Some(logged_by).filter(|n| !n.is_empty());
        plan.history.push(entry);
    }
    plan.people = Some(file_people).filter(|p| !p.is_empty());
    Ok(plan)
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
fn local_instant(clock: &UserClock, date: &str, time: &str) -> Result<String, String> {
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
    let instant = clock
        .tz
        .from_local_datetime(&date.and_time(time))
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|| crate::domain::planner::resolve(clock.tz, date.and_time(time)));
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

/// Where a file's medication lands in the account.
struct Target {
    medication: Option<i64>,
    /// The account's person the medication (and so its entries) belongs to.
    person: i64,
    name: String,
    unit: String,
    /// Made by this import: history kept from its deleted predecessor comes back to it.
    created: bool,
}

impl Target {
    fn new(medication: Option<i64>, m: &Medication, created: bool) -> Self {
        Target {
            medication,
            person: m.person_id,
            name: m.name.clone(),
            unit: m.unit.clone(),
            created,
        }
    }
}

fn write(
    conn: &Connection,
    user_id: i64,
    plan: Plan,
    imported: &mut Vec<Imported>,
    now: DateTime<Utc>,
) -> ServiceResult<Summary> {
    let mut summary = Summary::default();
    let created_at = Stamp::from(now);
    let now = clock::stamp(now);
    if let Some(patch) = plan.settings {
        let current = settings::get(conn, user_id)?;
        let mut merged = current.clone();
        if let Some(tz) = patch.timezone {
            merged.timezone = tz;
        }
        if let Some(time) = patch.default_reminder_time {
            merged.default_reminder_time = time;
        }
        merged.preferences.extend(patch.preferences);
        if (
            &merged.timezone,
            &merged.default_reminder_time,
            &merged.preferences,
        ) != (
            &current.timezone,
            &current.default_reminder_time,
            &current.preferences,
        ) {
            settings::save(conn, user_id, &merged)?;
            summary.settings.replaced = true;
        }
    }
    if let Some(map) = plan.preferences {
        let current = notify_prefs::global(conn, user_id)?;
        let mut merged = current.clone();
        apply_preferences(&map, &mut merged)?;
        if merged != current {
            notify_prefs::save_global(conn, user_id, &merged)?;
            summary.settings.replaced = true;
        }
    }

    let person_of = write_people(conn, user_id, plan.people, &mut summary.people, &now)?;
    let holder = people::self_person(conn, user_id)?;
    let person = |file: Option<i64>| file.and_then(|id| person_of.get(&id).copied()).unwrap_or(holder);

    // Each medication of the file matches at most one the account had before, by name, unit
    // and person; two alike in the file stay two.
    let mut unclaimed: Vec<(i64, String, String, i64)> = medications::list(conn, user_id)?
        .into_iter()
        .map(|m| (m.id, m.name.to_lowercase(), m.unit, m.person_id))
        .collect();
    let mut targets: HashMap<i64, Target> = HashMap::new();
    for mut new in plan.medications {
        new.medication.person_id = person(new.file_person);
        let m = &new.medication;
        if new.archived {
            targets.insert(new.file_id, Target::new(None, m, false));
            continue;
        }
        let wanted = m.name.to_lowercase();
        if let Some(index) = unclaimed
            .iter()
            .position(|(_, name, unit, owner)| *name == wanted && *unit == m.unit && *owner == m.person_id)
        {
            let (id, _, _, _) = unclaimed.swap_remove(index);
            summary.medications.skipped += 1;
            targets.insert(new.file_id, Target::new(Some(id), m, false));
            continue;
        }
        let id = medications::insert(conn, user_id, m)?;
        // `insert` stamps both times with created_at; keep the file's last change too.
        medications::set_updated_at(conn, id, m.updated_at)?;
        summary.medications.added += 1;
        if Frequency::parse(&m.frequency).is_some_and(|f| f != Frequency::AsNeeded) {
            summary.schedules.added += 1;
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
                    &now,
                )?;
            }
        }
        if let Some(prefs) = &new.prefs {
            notify_prefs::save_for_medication(conn, id, prefs)?;
        }
        targets.insert(new.file_id, Target::new(Some(id), m, true));
    }

    let mut existing = existing_history(conn, user_id)?;
    for e in plan.history {
        let Some(target) = targets.get(&e.file_medication) else {
            continue;
        };
        let key = DoseKey::of(&e);
        if let Some(id) = target.medication
            && let Some(left) = existing.live.get_mut(&id).and_then(|keys| keys.get_mut(&key))
            && *left > 0
        {
            *left -= 1;
            summary.history.skipped += 1;
            continue;
        }
        // Already kept under the name of a medication deleted since.
        if let Some(entry_id) = existing
            .archived
            .get_mut(&target.name.to_lowercase())
            .and_then(|keys| keys.get_mut(&key))
            .and_then(Vec::pop)
        {
            if let (Some(id), true) = (target.medication, target.created) {
                // It goes to the new medication's person too: who may see an entry follows it.
                history::attach_to_medication(conn, user_id, entry_id, id, target.person)?;
            }
            summary.history.skipped += 1;
            continue;
        }
        let entry = Entry {
            id: 0,
            medication_id: target.medication,
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
            person_id: match e.file_person {
                Some(_) => person(e.file_person),
                None => target.person,
            },
            logged_by: e.logged_by_name.map(|name| LoggedBy { user_id: None, name }),
        };
        let entry_id = history::insert(conn, user_id, &entry)?;
        if let Some(medication_id) = entry.medication_id {
            imported.push(Imported {
                entry_id,
                medication_id,
                taken: entry.taken,
            });
        }
        summary.history.added += 1;
    }
    Ok(summary)
}

/// Brings the file's people into the account: its account holder is the importing account's
/// own person; another is the account's person of that name, or a new one (archived as in
/// the file). Answers the account's person for each of the file's ids.
fn write_people(
    conn: &Connection,
    user_id: i64,
    file: Option<Vec<PersonFile>>,
    counts: &mut Counts,
    now: &str,
) -> ServiceResult<HashMap<i64, i64>> {
    let mut person_of = HashMap::new();
    let Some(file) = file else {
        return Ok(person_of);
    };
    let holder = people::self_person(conn, user_id)?;
    let mut unclaimed: Vec<(i64, String)> = people::own(conn, user_id)?
        .into_iter()
        .filter(|p| !p.is_self)
        .map(|p| (p.id, p.name.to_lowercase()))
        .collect();
    for p in file {
        if p.is_self {
            person_of.insert(p.id, holder);
            continue;
        }
        let wanted = p.name.to_lowercase();
        let id = match unclaimed.iter().position(|(_, name)| *name == wanted) {
            Some(index) => {
                counts.skipped += 1;
                unclaimed.swap_remove(index).0
            }
            None => {
                counts.added += 1;
                let id = people::insert(conn, user_id, &p.name, now)?;
                if p.archived {
                    people::set_archived(conn, id, Some(now), now)?;
                }
                id
            }
        };
        person_of.insert(p.id, id);
    }
    Ok(person_of)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            br#"{"version":"2.0.0","medications":[],"history":[]}"#,
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
        let Err(e) = plan_json(file, Utc::now()) else {
            panic!("accepted")
        };
        assert!(e.to_string().contains("medication 4"), "{e}");
    }

    #[test]
    fn people_are_checked_and_must_be_in_the_file() {
        let refused = |file: &str| match plan_json(file.as_bytes(), Utc::now()) {
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
        let Ok(plan) = plan_json(file.as_bytes(), Utc::now()) else {
            panic!("refused")
        };
        assert_eq!(plan.medications[0].file_person, Some(7));
        assert_eq!(plan.history[0].file_person, Some(7));
        assert_eq!(plan.history[0].logged_by_name.as_deref(), Some("Kim"));
    }
}

//! The export file (DESIGN §6): a person's whole record as JSON, and their history as CSV.
//!
//! Both are written row by row to any `Write`, inside one read transaction, so a long
//! history is never held in memory and the file is a consistent snapshot even while doses
//! are being logged. The HTTP handler streams it, `pillbox export` writes it to a file or
//! stdout, and the daily auto-backup keeps it in the data directory.

use std::collections::HashMap;
use std::io::Write;

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{ServiceResult, user_settings};
use crate::db::Stamp;
use crate::domain::quantity::Quantity;
use crate::domain::schedule::Rules;
use crate::domain::stock::InventoryType;
use crate::services::planner::UserClock;
use crate::services::prescriptions::PrescriptionInput;
use crate::store::batches::{self, Batch};
use crate::store::medications::{self, Medication};
use crate::store::notify_prefs::{self, GlobalPrefs, MedicationPrefs, Method};
use crate::store::prescriptions::{self, Prescription};
use crate::store::{history, people, settings};

/// The format this build writes; it reads every 1.x file. 1.1 added the people of the
/// account (`people`, each medication's and entry's `person_id`, `logged_by_name`); 1.2 each
/// medication's `prescription` and stock `batches`.
pub const FORMAT_VERSION: &str = "1.2.0";

/// One of the account's people. Carers are other accounts and are not part of an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PersonFile {
    /// Unique within the file; medications and history entries point to it.
    pub id: i64,
    pub name: String,
    /// The account holder (at most one); an import maps it to the importing account's own.
    #[serde(default)]
    pub is_self: bool,
    #[serde(default)]
    pub archived: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleFile {
    #[serde(default)]
    pub times: Vec<String>,
    #[serde(default)]
    pub weekdays: Vec<u32>,
    pub start_date: Option<String>,
    /// Interval, cycles, end date, steps, limits, clock, grace and follow-ups, when set.
    #[serde(flatten)]
    pub rules: Rules,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InventoryFile {
    pub enabled: bool,
    pub inventory_type: InventoryType,
    #[serde(default)]
    pub container_type: Option<String>,
    #[serde(default)]
    pub container_quantity: Option<i64>,
    #[serde(default)]
    pub container_size: Option<Quantity>,
    #[serde(default)]
    pub container_unit: Option<String>,
    #[serde(default)]
    pub item_quantity: Option<i64>,
    #[serde(default)]
    pub item_strength: Option<Quantity>,
    #[serde(default)]
    pub item_unit: Option<String>,
    pub current_quantity: Quantity,
    pub reminder_threshold: Quantity,
}

/// A medication's prescription (1.2), in the API's fields; what is absent is empty (and
/// `order_days_before` 7). An import checks it as the API checks one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PrescriptionFile {
    #[serde(default)]
    pub prescriber: Option<String>,
    #[serde(default)]
    pub pharmacy_name: Option<String>,
    #[serde(default)]
    pub pharmacy_phone: Option<String>,
    #[serde(default)]
    pub pharmacy_url: Option<String>,
    /// `YYYY-MM-DD`.
    #[serde(default)]
    pub prescribed_on: Option<String>,
    /// `YYYY-MM-DD`.
    #[serde(default)]
    pub expires_on: Option<String>,
    #[serde(default)]
    pub refills_authorised: Option<u32>,
    #[serde(default)]
    pub refills_left: Option<u32>,
    #[serde(default)]
    pub order_days_before: Option<u32>,
    /// When a refill was marked ordered (and its stock has not come yet), RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordered_at: Option<String>,
}

impl PrescriptionFile {
    /// The prescription as the API's input, for the API's checks.
    pub fn input(&self) -> PrescriptionInput {
        PrescriptionInput {
            prescriber: self.prescriber.clone(),
            pharmacy_name: self.pharmacy_name.clone(),
            pharmacy_phone: self.pharmacy_phone.clone(),
            pharmacy_url: self.pharmacy_url.clone(),
            prescribed_on: self.prescribed_on.clone(),
            expires_on: self.expires_on.clone(),
            refills_authorised: self.refills_authorised,
            refills_left: self.refills_left,
            order_days_before: self.order_days_before,
        }
    }
}

/// One stock batch of a medication (1.2), in the stock's unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchFile {
    /// What the batch held when entered.
    pub quantity: Quantity,
    /// What is left of it; absent: all of `quantity`.
    #[serde(default)]
    pub remaining: Option<Quantity>,
    /// The last day it may be used, `YYYY-MM-DD`. Whether it has expired is worked out again
    /// on import, on the importing account's day.
    pub expires_on: String,
    #[serde(default)]
    pub lot: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

/// A medication's own reminder preferences; absent fields follow the global ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MedicationPrefsFile {
    #[serde(default)]
    pub delivery_methods: Option<Vec<String>>,
    #[serde(default)]
    pub reminder_minutes_before: Option<i64>,
    #[serde(default)]
    pub custom_message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MedicationFile {
    /// Unique within the file; history entries point to it. Archived medications (deleted,
    /// their history kept) have negative ids.
    pub id: i64,
    pub name: String,
    pub unit: String,
    pub frequency: String,
    #[serde(default)]
    pub color: Option<String>,
    #[serde(default)]
    pub icon: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    pub default_quantity: Quantity,
    #[serde(default)]
    pub schedule: Option<ScheduleFile>,
    #[serde(default)]
    pub inventory: Option<InventoryFile>,
    #[serde(default, rename = "notificationPreferences")]
    pub notification_preferences: Option<MedicationPrefsFile>,
    /// Its prescription (1.2); absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prescription: Option<PrescriptionFile>,
    /// Its stock in batches, the first to expire first (1.2); absent or empty: its stock is
    /// the single count of `inventory`. With batches, the count is what those not expired hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batches: Vec<BatchFile>,
    #[serde(default)]
    pub archived: bool,
    /// Whose medicine it is (a `people` id of the file); absent: the account holder's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person_id: Option<i64>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
}

impl MedicationFile {
    /// A medication with only what identifies it; everything else takes its default.
    pub fn bare(
        id: i64,
        name: &str,
        unit: &str,
        frequency: &str,
        default_quantity: Quantity,
    ) -> MedicationFile {
        MedicationFile {
            id,
            name: name.to_owned(),
            unit: unit.to_owned(),
            frequency: frequency.to_owned(),
            color: None,
            icon: None,
            notes: None,
            default_quantity,
            schedule: None,
            inventory: None,
            notification_preferences: None,
            prescription: None,
            batches: Vec::new(),
            archived: false,
            person_id: None,
            created_at: None,
            updated_at: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryFile {
    #[serde(default)]
    pub id: Option<i64>,
    pub medication_id: Option<i64>,
    #[serde(default)]
    pub medication_name: Option<String>,
    pub quantity: Quantity,
    pub unit: String,
    pub status: String,
    /// When the dose was taken (or due), RFC 3339.
    pub taken: String,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default = "yes")]
    pub affect_inventory: bool,
    /// Whose dose it is (a `people` id of the file); absent: the medication's person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person_id: Option<i64>,
    /// Who logged it, by name (the account holder, a carer, a take link's recipient).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logged_by_name: Option<String>,
}

fn yes() -> bool {
    true
}

/// The export file's name for a day in the person's zone.
pub fn json_file_name(day: NaiveDate) -> String {
    format!("pillbox-export-{day}.json")
}

pub fn csv_file_name(day: NaiveDate) -> String {
    format!("pillbox-history-{day}.csv")
}

/// Today in the person's zone, for file names.
pub fn today_for(conn: &Connection, user_id: i64, now: DateTime<Utc>) -> ServiceResult<NaiveDate> {
    Ok(UserClock::at(conn, user_id, now)?.today())
}

/// The global reminder preferences as the export (and GET /api/notifications/preferences)
/// name them.
pub fn preferences_view(p: &GlobalPrefs) -> Value {
    json!({
        "email_notifications_enabled": p.email_enabled,
        "push_notifications_enabled": p.push_enabled,
        "notification_sound_enabled": p.sound_enabled,
        "notification_vibration_enabled": p.vibration_enabled,
        "default_reminder_minutes_before": p.lead_minutes,
        "default_delivery_methods": methods_view(&p.delivery_methods),
        "reminders_enabled": p.reminders_enabled,
        "repeat_interval_minutes": p.repeat_interval_minutes,
        "repeat_max": p.repeat_max,
        "hide_medication_names": p.hide_medication_names,
        "email_fallback_enabled": p.email_fallback,
    })
}

fn methods_view(methods: &[Method]) -> Vec<String> {
    methods.iter().map(|m| m.word()).collect()
}

fn inventory_file(inv: &medications::Inventory) -> InventoryFile {
    let c = &inv.containers;
    InventoryFile {
        enabled: inv.enabled,
        inventory_type: c.inventory_type,
        container_type: c.container_type.clone(),
        container_quantity: c.container_quantity,
        container_size: c.container_size,
        container_unit: c.container_unit.clone(),
        item_quantity: c.item_quantity,
        item_strength: c.item_strength,
        item_unit: c.item_unit.clone(),
        // Older versions could leave a negative balance; stock is never below zero.
        current_quantity: inv.current_quantity.max(Quantity::ZERO),
        reminder_threshold: inv.reminder_threshold,
    }
}

fn prefs_file(p: &MedicationPrefs) -> MedicationPrefsFile {
    MedicationPrefsFile {
        delivery_methods: p.delivery_methods.as_deref().map(methods_view),
        reminder_minutes_before: p.lead_minutes,
        custom_message: p.custom_message.clone(),
    }
}

fn prescription_file(p: &Prescription) -> PrescriptionFile {
    let text = |t: &str| Some(t.to_owned()).filter(|t| !t.is_empty());
    let count = |n: Option<i64>| n.and_then(|n| u32::try_from(n).ok());
    PrescriptionFile {
        prescriber: text(&p.prescriber),
        pharmacy_name: text(&p.pharmacy_name),
        pharmacy_phone: text(&p.pharmacy_phone),
        pharmacy_url: text(&p.pharmacy_url),
        prescribed_on: p.prescribed_on.map(|d| d.to_string()),
        expires_on: p.expires_on.map(|d| d.to_string()),
        refills_authorised: count(p.refills_authorised),
        refills_left: count(p.refills_left),
        order_days_before: u32::try_from(p.order_days_before).ok(),
        ordered_at: p.ordered_at.map(|t| t.to_string()),
    }
}

fn batch_file(b: &Batch) -> BatchFile {
    BatchFile {
        quantity: b.quantity,
        remaining: Some(b.remaining),
        expires_on: b.expires_on.to_string(),
        lot: b.lot.clone(),
        created_at: Some(b.created_at.to_string()),
    }
}

fn medication_file(conn: &Connection, m: &Medication) -> ServiceResult<MedicationFile> {
    Ok(MedicationFile {
        id: m.id,
        name: m.name.clone(),
        unit: m.unit.clone(),
        frequency: m.frequency.clone(),
        color: Some(m.color.clone()),
        icon: Some(m.icon.clone()),
        notes: Some(m.notes.clone()),
        default_quantity: m.default_quantity,
        schedule: Some(ScheduleFile {
            times: m.schedule_times.clone(),
            weekdays: m.schedule_weekdays.clone(),
            start_date: Some(m.start_date.to_string()),
            rules: m.rules.clone(),
        }),
        inventory: medications::inventory(conn, m.id)?.as_ref().map(inventory_file),
        notification_preferences: notify_prefs::for_medication(conn, m.id)?.as_ref().map(prefs_file),
        prescription: prescriptions::find(conn, m.id)?.as_ref().map(prescription_file),
        batches: batches::list(conn, m.id)?.iter().map(batch_file).collect(),
        archived: false,
        person_id: Some(m.person_id),
        created_at: Some(m.created_at.to_string()),
        updated_at: Some(m.updated_at.to_string()),
    })
}

/// Medications that were deleted with their history kept: one per (name, unit) found in
/// that history, with negative ids.
fn archived_medications(conn: &Connection, user_id: i64) -> ServiceResult<Vec<MedicationFile>> {
    Ok(history::deleted_medications(conn, user_id)?
        .into_iter()
        .enumerate()
        .map(|(index, deleted)| MedicationFile {
            archived: true,
            created_at: Some(deleted.first_taken),
            updated_at: Some(deleted.last_taken),
            ..MedicationFile::bare(
                -(index as i64 + 1),
                &deleted.name,
                &deleted.unit,
                "as_needed",
                Quantity::whole(1),
            )
        })
        .collect())
}

/// Calls `each` for every history entry of the user, oldest first, with archived
/// medications' ids filled in.
fn for_each_entry(
    conn: &Connection,
    user_id: i64,
    archived: &HashMap<(String, String), i64>,
    mut each: impl FnMut(EntryFile) -> ServiceResult<()>,
) -> ServiceResult<()> {
    history::for_each_exported(conn, user_id, |row| {
        let medication_id = row.medication_id.or_else(|| {
            archived
                .get(&(row.medication_name.clone(), row.medication_unit))
                .copied()
        });
        each(EntryFile {
            id: Some(row.id),
            medication_id,
            medication_name: Some(row.medication_name),
            quantity: row.quantity,
            unit: row.dosage_unit,
            status: row.status,
            taken: row.taken.to_string(),
            note: row.dosage,
            affect_inventory: row.affect_inventory,
            person_id: row.person_id,
            logged_by_name: row.logged_by_name,
        })
    })
}

/// Writes the JSON export file of one user.
/// The export file as of `now` (its `exportDate`).
pub fn write_json(
    conn: &Connection,
    user_id: i64,
    now: DateTime<Utc>,
    out: &mut dyn Write,
) -> ServiceResult<()> {
    // One read transaction: the medications and the history are from the same moment.
    let tx = conn.unchecked_transaction()?;
    let settings = user_settings::view(&settings::get(&tx, user_id)?);
    let preferences = preferences_view(&notify_prefs::global(&tx, user_id)?);
    let people: Vec<PersonFile> = people::own(&tx, user_id)?
        .into_iter()
        .map(|p| PersonFile {
            id: p.id,
            name: p.name,
            is_self: p.is_self,
            archived: p.archived,
        })
        .collect();
    let mut meds = Vec::new();
    for m in medications::list(&tx, user_id)? {
        meds.push(medication_file(&tx, &m)?);
    }
    let archived = archived_medications(&tx, user_id)?;
    let archived_ids: HashMap<(String, String), i64> = archived
        .iter()
        .map(|m| ((m.name.clone(), m.unit.clone()), m.id))
        .collect();
    meds.extend(archived);

    write!(
        out,
        "{{\n\"version\": {},\n\"exportDate\": {},\n\"settings\": {},\n\"notificationPreferences\": {},\n\"people\": {},\n\"medications\": [",
        json!(FORMAT_VERSION),
        json!(crate::clock::stamp(now)),
        settings,
        preferences,
        serde_json::to_string(&people).map_err(std::io::Error::from)?
    )?;
    for (i, m) in meds.iter().enumerate() {
        out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *out, m).map_err(std::io::Error::from)?;
    }
    out.write_all(b"\n],\n\"history\": [")?;
    let mut first = true;
    for_each_entry(&tx, user_id, &archived_ids, |entry| {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        first = false;
        serde_json::to_writer(&mut *out, &entry).map_err(std::io::Error::from)?;
        Ok(())
    })?;
    out.write_all(b"\n]\n}\n")?;
    out.flush()?;
    Ok(())
}

/// The CSV header; the importer reads the same columns (`person` names whose dose it is,
/// empty for the account holder's own, so the file imports into another account as its
/// holder's; `logged_by` who logged it).
pub const CSV_HEADER: [&str; 10] = [
    "date",
    "time",
    "medication",
    "quantity",
    "unit",
    "status",
    "note",
    "taken_at",
    "person",
    "logged_by",
];

/// A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage
/// return) as a formula; a leading apostrophe makes it plain text (OWASP's advice).
pub fn neutralise_formula(cell: &str) -> std::borrow::Cow<'_, str> {
    match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{cell}").into(),
        _ => cell.into(),
    }
}

/// Writes the user's history as CSV, oldest first, with local dates and times.
pub fn write_csv(
    conn: &Connection,
    user_id: i64,
    out: &mut dyn Write,
    now: DateTime<Utc>,
) -> ServiceResult<()> {
    let tx = conn.unchecked_transaction()?;
    let clock = UserClock::at(&tx, user_id, now)?;
    let names: HashMap<i64, String> = people::own(&tx, user_id)?
        .into_iter()
        .filter(|p| !p.is_self)
        .map(|p| (p.id, p.name))
        .collect();
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(CSV_HEADER).map_err(csv_error)?;
    for_each_entry(&tx, user_id, &HashMap::new(), |e| {
        // The stored time as `for_each_entry` wrote it out: it reads, or the export stops.
        let local = Stamp::parse(&e.taken)
            .map_err(|bad| super::ServiceError::Internal(format!("history entry {:?}: {bad}", e.id)))?
            .instant()
            .with_timezone(&clock.tz);
        let date = local.format("%Y-%m-%d").to_string();
        let time = local.format("%H:%M").to_string();
        let name = e.medication_name.unwrap_or_default();
        let quantity = e.quantity.to_string();
        let note = e.note.unwrap_or_default();
        let person = e
            .person_id
            .and_then(|id| names.get(&id))
            .map(String::as_str)
            .unwrap_or_default();
        let logged_by = e.logged_by_name.unwrap_or_default();
        let cells = [
            date.as_str(),
            time.as_str(),
            &name,
            &quantity,
            &e.unit,
            &e.status,
            &note,
            &e.taken,
            person,
            &logged_by,
        ];
        writer
            .write_record(cells.iter().map(|c| neutralise_formula(c).into_owned()))
            .map_err(csv_error)?;
        Ok(())
    })?;
    writer.flush()?;
    Ok(())
}

fn csv_error(e: csv::Error) -> super::ServiceError {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => super::ServiceError::Io(e),
        other => super::ServiceError::Io(std::io::Error::other(format!("{other:?}"))),
    }
}

/// The instant an RFC 3339 text names, in UTC.
pub fn parse_instant(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_become_text() {
        assert_eq!(neutralise_formula("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(neutralise_formula("+1"), "'+1");
        assert_eq!(neutralise_formula("-2"), "'-2");
        assert_eq!(neutralise_formula("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(neutralise_formula("Aspirin"), "Aspirin");
        assert_eq!(neutralise_formula(""), "");
    }
}

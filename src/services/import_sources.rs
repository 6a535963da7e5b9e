//! Files from the apps people leave, read into a Pillbox export file that the import then
//! checks, previews and writes like any other (`import::run`): MedTimer's CSV exports and a
//! FHIR R4 `Bundle` (from Pillbox or another system).
//!
//! What cannot be read is never guessed: columns Pillbox does not know are reported by name,
//! and rows (or bundle entries) that cannot be read are listed with their line (or entry)
//! number. The import shows them in its preview and writes nothing until the person agrees
//! to import the rest without them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, Read, Write};

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::export::{EntryFile, FORMAT_VERSION, MedicationFile, PersonFile, PrescriptionFile, ScheduleFile};
use super::{ErrorCode, ServiceError, ServiceResult, rejected};
use crate::domain::quantity::Quantity;
use crate::domain::schedule::{Rules, Step};
use crate::domain::units;

/// Where a file to import comes from (`POST /api/import?source=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A Pillbox export file or history CSV.
    Pillbox,
    /// MedTimer's events or medicines CSV (`;`-separated).
    MedTimer,
    /// A FHIR R4 Bundle.
    Fhir,
}

impl Origin {
    pub fn parse(text: &str) -> Option<Origin> {
        match text.trim() {
            "" | "pillbox" => Some(Origin::Pillbox),
            "medtimer" => Some(Origin::MedTimer),
            "fhir" => Some(Origin::Fhir),
            _ => None,
        }
    }
}

/// A row of the file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct Unreadable {
    /// The line of the file (for a FHIR bundle, the entry's number, from 1).
    pub line: usize,
    pub reason: String,
}

/// What reading another app's file found besides what it imports.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct SourceReport {
    /// Rows that could not be read. Nothing is imported while there are any, until the
    /// import is asked again with `skip_unreadable=true`.
    pub unreadable: Vec<Unreadable>,
    /// Columns of the file that Pillbox does not read (left out, not guessed).
    pub unknown_columns: Vec<String>,
    /// What was read differently from the other app, for the person to check.
    pub notices: Vec<String>,
}

/// A file that cannot be read as the app's it is said to be (`import_invalid`).
fn unusable(message: impl Into<String>) -> ServiceError {
    rejected(ErrorCode::ImportInvalid, message)
}

/// The unit of a dose that names none.
const DEFAULT_UNIT: &str = "pills";

fn write_file(
    out: &mut dyn Write,
    now: DateTime<Utc>,
    people: &[PersonFile],
    medications: &[MedicationFile],
    history: &[EntryFile],
) -> ServiceResult<()> {
    let file = json!({
        "version": FORMAT_VERSION,
        "exportDate": crate::clock::stamp(now),
        "people": people,
        "medications": medications,
        "history": history,
    });
    serde_json::to_writer(&mut *out, &file).map_err(std::io::Error::from)?;
    out.flush()?;
    Ok(())
}

fn entry(
    medication_id: i64,
    quantity: Quantity,
    unit: &str,
    status: &str,
    taken: DateTime<Utc>,
) -> EntryFile {
    EntryFile {
        id: None,
        medication_id: Some(medication_id),
        medication_name: None,
        quantity,
        unit: unit.to_owned(),
        status: status.to_owned(),
        taken: crate::clock::stamp(taken),
        note: None,
        affect_inventory: false,
        person_id: None,
        logged_by_name: None,
    }
}

/// A dose as another app writes it ("2", "1.5 ml", "500 mg", "2 pills"): its amount, its
/// unit from Pillbox's catalogue, and the text when it says more than that.
fn amount(text: &str) -> (Quantity, String, Option<String>) {
    let text = text.trim();
    let digits: String = text
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
        .collect();
    let rest = text[digits.len()..].trim();
    let number = digits
        .replace(',', ".")
        .parse::<f64>()
        .ok()
        .and_then(|n| Quantity::from_f64(n).ok())
        .filter(|q| q.is_positive());
    match number {
        Some(q) if rest.is_empty() => (q, DEFAULT_UNIT.to_owned(), None),
        Some(q) => match units::canonical(rest) {
            Ok(unit) => (q, unit, None),
            Err(_) => (q, DEFAULT_UNIT.to_owned(), Some(text.to_owned())),
        },
        None => (
            Quantity::whole(1),
            DEFAULT_UNIT.to_owned(),
            Some(text.to_owned()).filter(|t| !t.is_empty()),
        ),
    }
}

fn joined(parts: &[Option<String>]) -> Option<String> {
    let parts: Vec<&str> = parts
        .iter()
        .flatten()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn rfc3339(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

// --- MedTimer ------------------------------------------------------------------------------

/// The events export's columns, as MedTimer writes them in English (its headers follow the
/// app's language, so they are told by position; the last two always end in "(ISO 8601)").
const EVENT_COLUMNS: usize = 9;
/// The medicines export's columns: medicine, dosage, time.
const MEDICINE_COLUMNS: usize = 3;

/// Reads MedTimer's events CSV (reminded; name; dosage; taken; tags; interval; notes;
/// reminded ISO 8601; taken ISO 8601) or its medicines CSV (medicine; dosage; time) and writes
/// the Pillbox export file they make.
pub fn medtimer(
    reader: impl BufRead,
    now: DateTime<Utc>,
    out: &mut dyn Write,
) -> ServiceResult<SourceReport> {
    let mut lines = Vec::new();
    for line in reader.lines() {
        lines.push(line.map_err(|_| unusable("The file is not text (UTF-8): it is not a MedTimer export"))?);
    }
    let Some((header_at, header)) = lines.iter().enumerate().find(|(_, l)| !l.trim().is_empty()) else {
        return Err(unusable(
            "The file is empty: choose MedTimer's events or medicines CSV",
        ));
    };
    let columns: Vec<&str> = header.split(';').map(str::trim).collect();
    let rows = lines
        .iter()
        .enumerate()
        .skip(header_at + 1)
        .filter(|(_, l)| !l.trim().is_empty());
    let is_events = columns.len() >= EVENT_COLUMNS
        && columns[7].ends_with("(ISO 8601)")
        && columns[8].ends_with("(ISO 8601)");
    if is_events {
        let mut report = SourceReport {
            unknown_columns: columns[EVENT_COLUMNS..].iter().map(|c| (*c).to_owned()).collect(),
            ..SourceReport::default()
        };
        let (medications, history) = medtimer_events(rows, columns.len(), &mut report);
        write_file(out, now, &[], &medications, &history)?;
        return Ok(report);
    }
    if columns.len() == MEDICINE_COLUMNS {
        let mut report = SourceReport::default();
        let medications = medtimer_medicines(rows, &mut report);
        write_file(out, now, &[], &medications, &[])?;
        return Ok(report);
    }
    Err(unusable(format!(
        "This is not a MedTimer export: its first line has {} columns separated by ';'. MedTimer's \
         events CSV has 9 (the last two \"Reminded (ISO 8601)\" and \"Taken (ISO 8601)\"), its \
         medicines CSV 3 (medicine, dosage, time)",
        columns.len()
    )))
}

fn medtimer_events<'a>(
    rows: impl Iterator<Item = (usize, &'a String)>,
    width: usize,
    report: &mut SourceReport,
) -> (Vec<MedicationFile>, Vec<EntryFile>) {
    let mut medications: Vec<MedicationFile> = Vec::new();
    let mut ids: HashMap<String, i64> = HashMap::new();
    let mut history = Vec::new();
    for (index, line) in rows {
        let number = index + 1;
        let mut refuse = |reason: String| report.unreadable.push(Unreadable { line: number, reason });
        let fields: Vec<&str> = line.split(';').collect();
        if fields.len() != width {
            refuse(format!(
                "it has {} fields where the first line has {width} (a ';' inside a name or a note?)",
                fields.len()
            ));
            continue;
        }
        let name = fields[1].trim();
        if name.is_empty() {
            refuse("it names no medicine".into());
            continue;
        }
        let Some(reminded) = rfc3339(fields[7]) else {
            refuse(format!(
                "the reminded time '{}' is not an ISO 8601 time",
                fields[7].trim()
            ));
            continue;
        };
        let taken_text = fields[8].trim();
        let taken = if taken_text.is_empty() {
            None
        } else if let Some(taken) = rfc3339(taken_text) {
            Some(taken)
        } else {
            refuse(format!("the taken time '{taken_text}' is not an ISO 8601 time"));
            continue;
        };
        let (quantity, unit, said) = amount(fields[2]);
        let id = *ids.entry(name.to_owned()).or_insert_with(|| {
            let id = medications.len() as i64 + 1;
            let mut m = MedicationFile::bare(id, name, &unit, "as_needed", quantity);
            m.notes = Some("Imported from MedTimer".into());
            medications.push(m);
            id
        });
        let unit = &medications[id as usize - 1].unit;
        // MedTimer writes a taken time only for a dose taken; the others were not taken, and
        // the file does not say whether the person skipped them or never answered.
        let mut e = match taken {
            Some(at) => entry(id, quantity, unit, "taken", at),
            None => entry(id, quantity, unit, "missed", reminded),
        };
        let tags = Some(fields[4].trim().to_owned())
            .filter(|t| !t.is_empty())
            .map(|t| format!("Tags: {t}"));
        let dose = said.map(|s| format!("Dose in MedTimer: {s}"));
        e.note = joined(&[Some(fields[6].to_owned()), tags, dose]);
        history.push(e);
    }
    if history.iter().any(|e| e.status == "missed") {
        report.notices.push(
            "MedTimer's file says only which doses were taken: the others are imported as missed".into(),
        );
    }
    if !medications.is_empty() {
        report.notices.push(
            "MedTimer's events carry no schedules: the medications are imported as taken when needed; set their schedules in Pillbox"
                .into(),
        );
    }
    (medications, history)
}

fn medtimer_medicines<'a>(
    rows: impl Iterator<Item = (usize, &'a String)>,
    report: &mut SourceReport,
) -> Vec<MedicationFile> {
    let mut medications: Vec<MedicationFile> = Vec::new();
    let mut reminders: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for (index, line) in rows {
        let fields: Vec<&str> = line.split(';').collect();
        if fields.len() != MEDICINE_COLUMNS {
            report.unreadable.push(Unreadable {
                line: index + 1,
                reason: format!(
                    "it has {} fields where the first line has {MEDICINE_COLUMNS} (a ';' inside a name?)",
                    fields.len()
                ),
            });
            continue;
        }
        let name = fields[0].trim();
        if name.is_empty() {
            report.unreadable.push(Unreadable {
                line: index + 1,
                reason: "it names no medicine".into(),
            });
            continue;
        }
        let id = match medications.iter().find(|m| m.name == name) {
            Some(m) => m.id,
            None => {
                let (quantity, unit, said) = amount(fields[1]);
                let id = medications.len() as i64 + 1;
                let mut m = MedicationFile::bare(id, name, &unit, "as_needed", quantity);
                m.notes = said.map(|s| format!("Dose in MedTimer: {s}"));
                medications.push(m);
                id
            }
        };
        let when = fields[2].trim();
        if !when.is_empty() {
            reminders.entry(id).or_default().push(when.to_owned());
        }
    }
    for (id, times) in reminders {
        let m = &mut medications[id as usize - 1];
        m.notes = joined(&[
            m.notes.take(),
            Some(format!("MedTimer reminders: {}", times.join(" | "))),
        ]);
    }
    if !medications.is_empty() {
        report.notices.push(
            "MedTimer writes its reminders as text in the app's language: they are kept in each medication's notes; set the schedules in Pillbox"
                .into(),
        );
    }
    medications
}

// --- FHIR R4 -------------------------------------------------------------------------------

fn text_of(concept: &Value) -> Option<String> {
    concept["text"]
        .as_str()
        .or_else(|| {
            concept["coding"]
                .as_array()?
                .iter()
                .find_map(|c| c["display"].as_str())
        })
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
}

fn patient_name(patient: &Value) -> Option<String> {
    let name = patient["name"].as_array()?.first()?;
    if let Some(text) = name["text"].as_str().map(str::trim).filter(|t| !t.is_empty()) {
        return Some(text.to_owned());
    }
    let mut parts: Vec<&str> = name["given"]
        .as_array()
        .map(|g| g.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    parts.extend(name["family"].as_str());
    let joined = parts.join(" ");
    Some(joined.trim().to_owned()).filter(|n| !n.is_empty())
}

/// A unit as FHIR carries it, in Pillbox's catalogue ("tablet" is "tablets").
fn catalogue_unit(unit: &str) -> Option<String> {
    units::canonical(unit)
        .or_else(|_| units::canonical(&format!("{}s", unit.trim())))
        .ok()
}

fn date_part(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text.get(..10)?, "%Y-%m-%d").ok()
}

fn day_number(code: &str) -> Option<u32> {
    ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        .iter()
        .position(|d| *d == code)
        .map(|i| i as u32 + 1)
}

/// A medication's prescription from its request, as Pillbox's FHIR export writes it: the
/// prescriber (`requester.display`), `dispenseRequest` (validity, refills allowed, the
/// pharmacy as `performer`, its phone and ordering page from the contained `Organization` it
/// points to) and the refills left (Pillbox's extension). None when the request says nothing
/// of these.
fn prescription_of(request: &Value) -> Option<PrescriptionFile> {
    let text = |v: &Value| v.as_str().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
    let dispense = &request["dispenseRequest"];
    let performer = &dispense["performer"];
    let pharmacy = performer["reference"]
        .as_str()
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|id| {
            request["contained"]
                .as_array()?
                .iter()
                .find(|c| c["resourceType"] == "Organization" && c["id"] == id)
        });
    let telecom = |system: &str| {
        pharmacy?["telecom"]
            .as_array()?
            .iter()
            .find(|t| t["system"] == system)
            .and_then(|t| text(&t["value"]))
    };
    let day = |v: &Value| v.as_str().and_then(date_part).map(|d| d.to_string());
    let count = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok());
    let refills_left = request["extension"].as_array().and_then(|all| {
        all.iter()
            .find(|x| x["url"] == super::fhir::REFILLS_LEFT_EXTENSION)
            .and_then(|x| count(&x["valueUnsignedInt"]))
    });
    let p = PrescriptionFile {
        prescriber: text(&request["requester"]["display"]),
        pharmacy_name: pharmacy
            .and_then(|o| text(&o["name"]))
            .or_else(|| text(&performer["display"])),
        pharmacy_phone: telecom("phone"),
        pharmacy_url: telecom("url"),
        prescribed_on: day(&dispense["validityPeriod"]["start"]),
        expires_on: day(&dispense["validityPeriod"]["end"]),
        refills_authorised: count(&dispense["numberOfRepeatsAllowed"]),
        refills_left,
        order_days_before: None,
        ordered_at: None,
    };
    (p != PrescriptionFile::default()).then_some(p)
}

/// A medication's schedule from its request's dosage instructions (one, or one per taper
/// step), or why it cannot be read.
fn schedule_of(request: &Value, m: &mut MedicationFile) -> Result<(), String> {
    let dosages = request["dosageInstruction"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let Some(first) = dosages.first() else {
        return Ok(());
    };
    let repeat = &first["timing"]["repeat"];
    let mut schedule = ScheduleFile {
        times: Vec::new(),
        weekdays: Vec::new(),
        start_date: None,
        rules: Rules::default(),
    };
    if let Some(times) = repeat["timeOfDay"].as_array() {
        for t in times {
            let t = t.as_str().unwrap_or_default();
            let hm = t.get(..5).filter(|hm| hm.len() == 5 && hm.as_bytes()[2] == b':');
            schedule.times.push(
                hm.ok_or_else(|| format!("the time of day '{t}' is not hh:mm:ss"))?
                    .to_owned(),
            );
        }
    }
    let period = repeat["period"].as_f64().unwrap_or(1.0);
    let whole = |n: f64| -> Result<u32, String> {
        (n.fract() == 0.0 && (1.0..=366.0).contains(&n))
            .then_some(n as u32)
            .ok_or_else(|| format!("a period of {n} cannot be a Pillbox schedule"))
    };
    let as_needed =
        first["asNeededBoolean"].as_bool() == Some(true) || first.get("asNeededCodeableConcept").is_some();
    m.frequency = if as_needed {
        "as_needed".into()
    } else if let Some(days) = repeat["dayOfWeek"].as_array() {
        for d in days {
            let code = d.as_str().unwrap_or_default();
            schedule
                .weekdays
                .push(day_number(code).ok_or_else(|| format!("'{code}' is no day of the week"))?);
        }
        "weekly".into()
    } else {
        match repeat["periodUnit"].as_str() {
            Some("h") => {
                schedule.rules.interval_hours = Some(whole(period)?.min(24));
                "daily".into()
            }
            Some("d") | None => {
                if period > 1.0 {
                    schedule.rules.every_days = Some(whole(period)?);
                }
                let frequency = repeat["frequency"].as_u64().unwrap_or(1);
                if schedule.times.is_empty() && frequency == 2 {
                    "twice_daily"
                } else {
                    "daily"
                }
                .into()
            }
            Some("wk") if period == 1.0 => "weekly".into(),
            Some("mo") if period == 1.0 => "monthly".into(),
            Some(other) => return Err(format!("every {period} {other} cannot be a Pillbox schedule")),
        }
    };
    let bounds = &repeat["boundsPeriod"];
    schedule.start_date = bounds["start"]
        .as_str()
        .and_then(date_part)
        .map(|d| d.to_string());
    if let Some(max) = first["maxDosePerPeriod"]["numerator"]["value"].as_f64() {
        schedule.rules.max_per_day = Some(whole(max)?);
    }
    if let Some(cycle) = first["extension"]
        .as_array()
        .and_then(|e| e.iter().find(|x| x["url"] == super::fhir::CYCLE_EXTENSION))
    {
        let part = |name: &str| {
            cycle["extension"]
                .as_array()
                .and_then(|parts| parts.iter().find(|p| p["url"] == name))
                .and_then(|p| p["valuePositiveInt"].as_u64())
                .map(|n| n as u32)
        };
        schedule.rules.cycle_on_days = part("onDays");
        schedule.rules.cycle_off_days = part("offDays");
    }
    let dose = |d: &Value| -> Option<f64> { d["doseAndRate"][0]["doseQuantity"]["value"].as_f64() };
    if let Some(q) = dose(first)
        .and_then(|v| Quantity::from_f64(v).ok())
        .filter(|q| q.is_positive())
    {
        m.default_quantity = q;
    }
    if dosages.len() > 1 {
        // A taper: one instruction per step, each with its days.
        for d in &dosages {
            let b = &d["timing"]["repeat"]["boundsPeriod"];
            let (Some(from), Some(to)) = (
                b["start"].as_str().and_then(date_part),
                b["end"].as_str().and_then(date_part),
            ) else {
                return Err("a step of several dosage instructions has no start and end".into());
            };
            let quantity = dose(d)
                .and_then(|v| Quantity::from_f64(v).ok())
                .filter(|q| q.is_positive())
                .ok_or("a step has no dose")?;
            let days = (to - from).num_days() + 1;
            schedule.rules.steps.push(Step {
                days: u32::try_from(days)
                    .ok()
                    .filter(|d| *d >= 1)
                    .ok_or("a step ends before it starts")?,
                quantity,
            });
        }
    } else {
        schedule.rules.end_date = bounds["end"].as_str().and_then(date_part);
    }
    m.schedule = Some(schedule);
    Ok(())
}

/// Reads a FHIR R4 Bundle (Patient, Medication, MedicationRequest, MedicationAdministration;
/// MedicationStatement restates the others) and writes the Pillbox export file it makes.
pub fn fhir(reader: impl Read, now: DateTime<Utc>, out: &mut dyn Write) -> ServiceResult<SourceReport> {
    let bundle: Value = serde_json::from_reader(reader)
        .map_err(|e| unusable(format!("The file is not JSON ({e}): it is not a FHIR bundle")))?;
    if bundle["resourceType"] != "Bundle" {
        return Err(unusable(
            "The file is not a FHIR Bundle (its resourceType is not \"Bundle\")",
        ));
    }
    let entries = bundle["entry"].as_array().cloned().unwrap_or_default();
    let mut report = SourceReport::default();
    // Each resource is found by its fullUrl and by "Type/id".
    let key_of = |e: &Value| -> Vec<String> {
        let r = &e["resource"];
        let mut keys: Vec<String> = e["fullUrl"].as_str().map(str::to_owned).into_iter().collect();
        if let (Some(kind), Some(id)) = (r["resourceType"].as_str(), r["id"].as_str()) {
            keys.push(format!("{kind}/{id}"));
        }
        keys
    };
    let of_kind = |kind: &'static str| {
        entries
            .iter()
            .enumerate()
            .filter(move |(_, e)| e["resource"]["resourceType"] == kind)
    };

    let patients: Vec<(usize, &Value)> = of_kind("Patient").collect();
    let mut people = Vec::new();
    let mut person_of: HashMap<String, i64> = HashMap::new();
    for (n, (_, e)) in patients.iter().enumerate() {
        let id = n as i64 + 1;
        let r = &e["resource"];
        people.push(PersonFile {
            id,
            name: patient_name(r).unwrap_or_else(|| format!("Patient {id}")),
            // One patient is the account holder; of several, each is matched by name.
            is_self: patients.len() == 1,
            archived: r["active"] == false,
        });
        for k in key_of(e) {
            person_of.insert(k, id);
        }
    }
    let person = |reference: &Value| {
        reference["reference"]
            .as_str()
            .and_then(|k| person_of.get(k).copied())
    };

    let mut medications: Vec<MedicationFile> = Vec::new();
    let mut medication_of: HashMap<String, i64> = HashMap::new();
    for (index, e) in of_kind("Medication") {
        let r = &e["resource"];
        let Some(name) = text_of(&r["code"]) else {
            report.unreadable.push(Unreadable {
                line: index + 1,
                reason: "a Medication without a name (code.text)".into(),
            });
            continue;
        };
        let unit = text_of(&r["form"])
            .and_then(|f| catalogue_unit(&f))
            .unwrap_or_else(|| DEFAULT_UNIT.into());
        let id = medications.len() as i64 + 1;
        let mut m = MedicationFile::bare(id, &name, &unit, "as_needed", Quantity::whole(1));
        // Until a request gives it a schedule, a medication with only doses is a past one.
        m.archived = true;
        medications.push(m);
        for k in key_of(e) {
            medication_of.insert(k, id);
        }
    }
    // A medication named in place (medicationCodeableConcept), made once per name.
    let named_in_place = |concept: &Value, medications: &mut Vec<MedicationFile>| -> Option<i64> {
        let name = text_of(concept)?;
        if let Some(m) = medications.iter().find(|m| m.name == name) {
            return Some(m.id);
        }
        let id = medications.len() as i64 + 1;
        let mut m = MedicationFile::bare(id, &name, DEFAULT_UNIT, "as_needed", Quantity::whole(1));
        m.archived = true;
        medications.push(m);
        Some(id)
    };

    let mut scheduled: HashSet<i64> = HashSet::new();
    for (index, e) in of_kind("MedicationRequest") {
        let r = &e["resource"];
        let id = match r["medicationReference"]["reference"].as_str() {
            Some(k) => medication_of.get(k).copied(),
            None => named_in_place(&r["medicationCodeableConcept"], &mut medications),
        };
        let Some(id) = id else {
            report.unreadable.push(Unreadable {
                line: index + 1,
                reason: "a MedicationRequest for a medication the bundle does not hold".into(),
            });
            continue;
        };
        if !scheduled.insert(id) {
            report.notices.push(format!(
                "{} has more than one MedicationRequest: the first is its schedule",
                medications[id as usize - 1].name
            ));
            continue;
        }
        let m = &mut medications[id as usize - 1];
        m.person_id = person(&r["subject"]);
        m.archived = false;
        if let Some(unit) = r["dosageInstruction"][0]["doseAndRate"][0]["doseQuantity"]["unit"]
            .as_str()
            .and_then(catalogue_unit)
        {
            m.unit = unit;
        }
        if let Err(reason) = schedule_of(r, m) {
            report.unreadable.push(Unreadable {
                line: index + 1,
                reason: format!("the schedule of {}: {reason}", m.name),
            });
            m.schedule = None;
            m.frequency = "as_needed".into();
        }
        if let Some(p) = prescription_of(r) {
            // Another system's prescription that Pillbox would refuse is left out, not the file.
            match super::prescriptions::checked(p.input(), now) {
                Ok(_) => m.prescription = Some(p),
                Err(e) => report
                    .notices
                    .push(format!("The prescription of {} was left out: {e}", m.name)),
            }
        }
    }

    let mut history = Vec::new();
    for (index, e) in of_kind("MedicationAdministration") {
        let r = &e["resource"];
        let line = index + 1;
        let id = match r["medicationReference"]["reference"].as_str() {
            Some(k) => medication_of.get(k).copied(),
            None => named_in_place(&r["medicationCodeableConcept"], &mut medications),
        };
        let Some(id) = id else {
            report.unreadable.push(Unreadable {
                line,
                reason: "a dose of a medication the bundle does not hold".into(),
            });
            continue;
        };
        let at = r["effectiveDateTime"]
            .as_str()
            .or_else(|| r["effectivePeriod"]["start"].as_str());
        let Some(at) = at.and_then(rfc3339) else {
            report.unreadable.push(Unreadable {
                line,
                reason: "a dose without a date and time (effectiveDateTime)".into(),
            });
            continue;
        };
        let status = match r["status"].as_str() {
            Some("completed") => "taken",
            Some("not-done") => {
                let reason = r["statusReason"][0]["text"].as_str().unwrap_or_default();
                if reason.to_ascii_lowercase().starts_with("skip") {
                    "skipped"
                } else {
                    "missed"
                }
            }
            other => {
                report.unreadable.push(Unreadable {
                    line,
                    reason: format!(
                        "a dose with status {} is neither given nor not done",
                        other.unwrap_or("(none)")
                    ),
                });
                continue;
            }
        };
        let medication = &medications[id as usize - 1];
        let dose = &r["dosage"]["dose"];
        let quantity = dose["value"]
            .as_f64()
            .and_then(|v| Quantity::from_f64(v).ok())
            .filter(|q| q.is_positive())
            .unwrap_or(medication.default_quantity);
        let unit = dose["unit"]
            .as_str()
            .and_then(catalogue_unit)
            .unwrap_or_else(|| medication.unit.clone());
        let mut entry = entry(id, quantity, &unit, status, at);
        entry.person_id = person(&r["subject"]);
        entry.logged_by_name = r["performer"][0]["actor"]["display"].as_str().map(str::to_owned);
        entry.note = r["note"][0]["text"].as_str().map(str::to_owned);
        history.push(entry);
    }
    // A medication's person is that of its doses when no request says it.
    for m in medications.iter_mut().filter(|m| m.person_id.is_none()) {
        m.person_id = history
            .iter()
            .find(|e| e.medication_id == Some(m.id))
            .and_then(|e| e.person_id);
    }

    let mut others: BTreeMap<String, usize> = BTreeMap::new();
    for e in &entries {
        let kind = e["resource"]["resourceType"]
            .as_str()
            .unwrap_or("(no resourceType)");
        if !matches!(
            kind,
            "Patient"
                | "Medication"
                | "MedicationRequest"
                | "MedicationAdministration"
                | "MedicationStatement"
        ) {
            *others.entry(kind.to_owned()).or_default() += 1;
        }
    }
    for (kind, n) in others {
        report.notices.push(format!(
            "{n} {kind} resource(s) left out: Pillbox keeps people, medications, schedules and doses"
        ));
    }
    write_file(out, now, &people, &medications, &history)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dose_is_read_as_an_amount_and_a_catalogue_unit_and_the_rest_is_kept() {
        assert_eq!(amount("2"), (Quantity::whole(2), "pills".into(), None));
        assert_eq!(
            amount("1,5 ml"),
            (Quantity::from_f64(1.5).unwrap(), "ml".into(), None)
        );
        assert_eq!(amount(" 500 mg "), (Quantity::whole(500), "mg".into(), None));
        assert_eq!(
            amount("1 spoon"),
            (Quantity::whole(1), "pills".into(), Some("1 spoon".into()))
        );
        assert_eq!(
            amount("some"),
            (Quantity::whole(1), "pills".into(), Some("some".into()))
        );
    }
}

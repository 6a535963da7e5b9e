//! The account's record as a FHIR R4 `Bundle` (type `collection`): a `Patient` per person, a
//! `Medication` and a `MedicationStatement` per medication, a `MedicationRequest` per schedule
//! (its `dosageInstruction` says what the schedule says), and a `MedicationAdministration` per
//! history entry. For a doctor's system, a pharmacy or the next app.
//!
//! Written entry by entry to any `Write` inside one read transaction, like the JSON export: a
//! long history is never held in memory. Every resource's id is derived from the account and
//! the row it stands for, so two exports of the same data name the same resources, and every
//! reference inside the bundle is a `urn:uuid:` `fullUrl` of an entry in it.

use std::collections::{HashMap, HashSet};
use std::io::Write;

use chrono::{DateTime, NaiveDate, NaiveTime, Utc, Weekday};
use rusqlite::Connection;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::planner::UserClock;
use super::{ErrorCode, Problem, ServiceError, ServiceResult};
use crate::domain::dose::DoseStatus;
use crate::domain::quantity::Quantity;
use crate::domain::schedule::{self, Frequency};
use crate::domain::units::{self, Category};
use crate::store::medications::{self, Medication};
use crate::store::people::Person;
use crate::store::prescriptions::{self, Prescription};
use crate::store::{history, people};

/// The media type of the answer (FHIR's JSON format).
pub const CONTENT_TYPE: &str = "application/fhir+json";

/// Where Pillbox's own extensions are named; FHIR has no element for an on/off cycle.
pub const CYCLE_EXTENSION: &str = "urn:pillbox:fhir:schedule-cycle";

/// The refills a prescription has left, which FHIR's `dispenseRequest` has no element for.
pub const REFILLS_LEFT_EXTENSION: &str = "urn:pillbox:fhir:refills-left";

const UCUM: &str = "http://unitsofmeasure.org";

pub fn file_name(day: NaiveDate) -> String {
    format!("pillbox-fhir-{day}.json")
}

/// A stable `urn:uuid:` for a row of the account: a name-based UUID (version 8 layout) from
/// SHA-256 of the account, the kind of resource and the row's id.
fn uuid_for(user_id: i64, kind: &str, id: i64) -> String {
    let digest = Sha256::digest(format!("pillbox-fhir\0{user_id}\0{kind}\0{id}").as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

struct Ref {
    id: String,
}

impl Ref {
    fn new(user_id: i64, kind: &str, id: i64) -> Ref {
        Ref {
            id: uuid_for(user_id, kind, id),
        }
    }

    fn url(&self) -> String {
        format!("urn:uuid:{}", self.id)
    }

    fn reference(&self) -> Value {
        json!({ "reference": self.url() })
    }
}

fn quantity(value: Quantity, unit: &str) -> Value {
    let mut q = Map::new();
    q.insert("value".into(), json!(value));
    if !unit.trim().is_empty() {
        q.insert("unit".into(), json!(unit));
    }
    Value::Object(q)
}

fn day_code(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "mon",
        Weekday::Tue => "tue",
        Weekday::Wed => "wed",
        Weekday::Thu => "thu",
        Weekday::Fri => "fri",
        Weekday::Sat => "sat",
        Weekday::Sun => "sun",
    }
}

fn time_of_day(t: NaiveTime) -> String {
    t.format("%H:%M:%S").to_string()
}

/// The last day a schedule gives doses, when it ends: its end date, or its taper's last step.
fn last_day(m: &Medication) -> Option<NaiveDate> {
    let taper_end = m.rules.dated_steps(m.start_date).last().map(|s| s.last_day);
    match (m.rules.end_date, taper_end) {
        (Some(end), Some(taper)) => Some(end.min(taper)),
        (end, taper) => end.or(taper),
    }
}

/// The `Timing.repeat` of a schedule, without its bounds (each dosage step has its own).
fn repeat(m: &Medication, clock: &UserClock) -> Map<String, Value> {
    let frequency = Frequency::parse(&m.frequency).unwrap_or(Frequency::Daily);
    let times = schedule::parse_times(&m.schedule_times).unwrap_or_default();
    let mut r = Map::new();
    if frequency == Frequency::AsNeeded {
        return r;
    }
    if let Some(hours) = m.rules.interval_hours {
        r.insert("frequency".into(), json!(1));
        r.insert("period".into(), json!(hours));
        r.insert("periodUnit".into(), json!("h"));
        return r;
    }
    let day_times = schedule::effective_times(frequency, &times, clock.default_time);
    match frequency {
        Frequency::Weekly => {
            let days = schedule::parse_weekdays(&m.schedule_weekdays).unwrap_or_default();
            let days = schedule::effective_weekdays(&days, m.start_date);
            r.insert(
                "dayOfWeek".into(),
                json!(days.into_iter().map(day_code).collect::<Vec<_>>()),
            );
        }
        Frequency::Monthly => {
            r.insert("frequency".into(), json!(day_times.len()));
            r.insert("period".into(), json!(1));
            r.insert("periodUnit".into(), json!("mo"));
        }
        _ => {
            r.insert("frequency".into(), json!(day_times.len()));
            r.insert("period".into(), json!(m.rules.every_days.unwrap_or(1)));
            r.insert("periodUnit".into(), json!("d"));
        }
    }
    r.insert(
        "timeOfDay".into(),
        json!(day_times.into_iter().map(time_of_day).collect::<Vec<_>>()),
    );
    r
}

/// What the structured timing cannot say, in words (English: the text is for the people who
/// read the record, the structure for the systems).
fn schedule_text(m: &Medication) -> Option<String> {
    let frequency = Frequency::parse(&m.frequency).unwrap_or(Frequency::Daily);
    let mut parts = Vec::new();
    if frequency == Frequency::AsNeeded {
        parts.push("As needed".to_owned());
    }
    if frequency == Frequency::Monthly {
        parts.push(format!(
            "Monthly on day {} (the month's last day when it is shorter)",
            m.start_date.format("%-d")
        ));
    }
    if let (Some(on), Some(off)) = (m.rules.cycle_on_days, m.rules.cycle_off_days) {
        parts.push(format!("{on} days on, {off} days off"));
    }
    if let Some(minutes) = m.rules.min_gap_minutes {
        parts.push(format!("At least {minutes} minutes between doses"));
    }
    if let Some(max) = m.rules.max_per_day {
        parts.push(format!("At most {max} doses a day"));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The schedule's dosage instructions: one, or one per taper step, each with its days.
fn dosage_instructions(m: &Medication, clock: &UserClock) -> Vec<Value> {
    let frequency = Frequency::parse(&m.frequency).unwrap_or(Frequency::Daily);
    let repeat = repeat(m, clock);
    let cycle = match (m.rules.cycle_on_days, m.rules.cycle_off_days) {
        (Some(on), Some(off)) => Some(json!([{
            "url": CYCLE_EXTENSION,
            "extension": [
                { "url": "onDays", "valuePositiveInt": on.max(1) },
                { "url": "offDays", "valuePositiveInt": off.max(1) },
            ],
        }])),
        _ => None,
    };
    let text = schedule_text(m);
    let steps: Vec<(NaiveDate, Option<NaiveDate>, Quantity)> = if m.rules.steps.is_empty() {
        vec![(m.start_date, m.rules.end_date, m.default_quantity)]
    } else {
        m.rules
            .dated_steps(m.start_date)
            .into_iter()
            .map(|s| (s.first_day, Some(s.last_day), s.quantity))
            .collect()
    };
    steps
        .into_iter()
        .enumerate()
        .map(|(i, (first, last, amount))| {
            let mut bounds = Map::new();
            match (m.rules.interval_hours, m.rules.anchor) {
                // An every-N-hours schedule counts from its first dose, an instant.
                (Some(_), Some(anchor)) if i == 0 => {
                    bounds.insert("start".into(), json!(crate::clock::stamp(anchor)));
                }
                _ => {
                    bounds.insert("start".into(), json!(first.to_string()));
                }
            }
            if let Some(last) = last {
                bounds.insert("end".into(), json!(last.to_string()));
            }
            let mut timing_repeat = repeat.clone();
            timing_repeat.insert("boundsPeriod".into(), Value::Object(bounds));
            let mut timing = Map::new();
            timing.insert("repeat".into(), Value::Object(timing_repeat));
            if let (Some(on), Some(off)) = (m.rules.cycle_on_days, m.rules.cycle_off_days) {
                timing.insert(
                    "code".into(),
                    json!({ "text": format!("{on} days on, {off} days off") }),
                );
            }
            let mut d = Map::new();
            d.insert("sequence".into(), json!(i + 1));
            if let Some(text) = &text {
                d.insert("text".into(), json!(text));
            }
            if let Some(cycle) = &cycle {
                d.insert("extension".into(), cycle.clone());
            }
            d.insert("timing".into(), Value::Object(timing));
            if frequency == Frequency::AsNeeded {
                d.insert("asNeededBoolean".into(), json!(true));
            }
            d.insert(
                "doseAndRate".into(),
                json!([{ "doseQuantity": quantity(amount, &m.unit) }]),
            );
            if let Some(max) = m.rules.max_per_day {
                d.insert(
                    "maxDosePerPeriod".into(),
                    json!({
                        "numerator": { "value": max },
                        "denominator": { "value": 1, "unit": "day", "system": UCUM, "code": "d" },
                    }),
                );
            }
            Value::Object(d)
        })
        .collect()
}

/// A resource as a bundle entry.
/// A medication's prescription on its request: the prescriber (`requester`), how long it is
/// valid and how many refills it allows (`dispenseRequest`), the pharmacy with its phone and
/// ordering page (a contained `Organization`), and the refills left (an extension).
fn prescribed(request: &mut Map<String, Value>, p: &Prescription) {
    if !p.prescriber.is_empty() {
        request.insert("requester".into(), json!({ "display": p.prescriber }));
    }
    let mut dispense = Map::new();
    let mut validity = Map::new();
    if let Some(on) = p.prescribed_on {
        validity.insert("start".into(), json!(on.to_string()));
    }
    if let Some(until) = p.expires_on {
        validity.insert("end".into(), json!(until.to_string()));
    }
    if !validity.is_empty() {
        dispense.insert("validityPeriod".into(), Value::Object(validity));
    }
    if let Some(n) = p.refills_authorised {
        dispense.insert("numberOfRepeatsAllowed".into(), json!(n));
    }
    let mut telecom = Vec::new();
    if !p.pharmacy_phone.is_empty() {
        telecom.push(json!({ "system": "phone", "value": p.pharmacy_phone }));
    }
    if !p.pharmacy_url.is_empty() {
        telecom.push(json!({ "system": "url", "value": p.pharmacy_url }));
    }
    if !p.pharmacy_name.is_empty() || !telecom.is_empty() {
        let mut pharmacy = Map::new();
        pharmacy.insert("resourceType".into(), json!("Organization"));
        pharmacy.insert("id".into(), json!("pharmacy"));
        let mut performer = Map::new();
        performer.insert("reference".into(), json!("#pharmacy"));
        if !p.pharmacy_name.is_empty() {
            pharmacy.insert("name".into(), json!(p.pharmacy_name));
            performer.insert("display".into(), json!(p.pharmacy_name));
        }
        if !telecom.is_empty() {
            pharmacy.insert("telecom".into(), Value::Array(telecom));
        }
        request.insert("contained".into(), json!([pharmacy]));
        dispense.insert("performer".into(), Value::Object(performer));
    }
    if !dispense.is_empty() {
        request.insert("dispenseRequest".into(), Value::Object(dispense));
    }
    if let Some(left) = p.refills_left {
        request.insert(
            "extension".into(),
            json!([{ "url": REFILLS_LEFT_EXTENSION, "valueUnsignedInt": left }]),
        );
    }
}

fn entry(r: &Ref, resource: Value) -> Value {
    json!({ "fullUrl": r.url(), "resource": resource })
}

fn patient(user_id: i64, p: &Person) -> Value {
    let r = Ref::new(user_id, "person", p.id);
    entry(
        &r,
        json!({
            "resourceType": "Patient",
            "id": r.id,
            "active": !p.archived,
            "name": [{ "text": p.name }],
        }),
    )
}

/// The medication's form (its unit when that is a form: tablets, capsules, puffs) and its
/// strength per item, when its stock says so.
fn medication(user_id: i64, id: i64, name: &str, unit: &str, strength: Option<Value>) -> Value {
    let r = Ref::new(user_id, "medication", id);
    let mut resource = Map::new();
    resource.insert("resourceType".into(), json!("Medication"));
    resource.insert("id".into(), json!(r.id));
    resource.insert("code".into(), json!({ "text": name }));
    if is_form(unit) {
        resource.insert("form".into(), json!({ "text": unit }));
    }
    if let Some(strength) = strength {
        resource.insert(
            "ingredient".into(),
            json!([{ "itemCodeableConcept": { "text": name }, "strength": strength }]),
        );
    }
    entry(&r, Value::Object(resource))
}

/// Units that name a form (tablets, capsules, pills, drops), not an amount of a substance.
fn is_form(unit: &str) -> bool {
    units::find(unit).is_some_and(|u| u.category == Category::Count && u.symbol != "units")
}

fn strength_of(inv: &medications::Inventory, unit: &str) -> Option<Value> {
    let c = &inv.containers;
    let (Some(amount), Some(per)) = (c.item_strength, c.item_unit.as_deref()) else {
        return None;
    };
    if !amount.is_positive() || per.trim().is_empty() {
        return None;
    }
    Some(json!({
        "numerator": quantity(amount, per),
        "denominator": quantity(Quantity::whole(1), unit),
    }))
}

fn person_not_found() -> ServiceError {
    ServiceError::NotFound(Problem::new(ErrorCode::PersonNotFound, "Person not found"))
}

/// Refuses a person who is not one of the account's own (before an export starts, so that
/// the answer can still be a 404).
pub fn check_person(conn: &Connection, user_id: i64, person_id: i64) -> ServiceResult<()> {
    if people::own(conn, user_id)?.iter().any(|p| p.id == person_id) {
        Ok(())
    } else {
        Err(person_not_found())
    }
}

/// One export, from one read transaction. `person_id` limits it to one of the account's
/// people (404 `person_not_found` for any other id).
pub fn write_bundle(
    conn: &Connection,
    user_id: i64,
    person_id: Option<i64>,
    now: DateTime<Utc>,
    out: &mut dyn Write,
) -> ServiceResult<()> {
    let tx = conn.unchecked_transaction()?;
    let clock = UserClock::at(&tx, user_id, now)?;
    let today = clock.today();
    let all_people = people::own(&tx, user_id)?;
    let self_id = all_people.iter().find(|p| p.is_self).map(|p| p.id);
    let chosen: Vec<&Person> = match person_id {
        None => all_people.iter().collect(),
        Some(id) => {
            let found: Vec<&Person> = all_people.iter().filter(|p| p.id == id).collect();
            if found.is_empty() {
                return Err(person_not_found());
            }
            found
        }
    };
    let wanted = |id: Option<i64>| person_id.is_none() || id == person_id;
    let all_meds = medications::list(&tx, user_id)?;
    let med_person: HashMap<i64, i64> = all_meds.iter().map(|m| (m.id, m.person_id)).collect();
    let meds: Vec<Medication> = all_meds
        .into_iter()
        .filter(|m| wanted(Some(m.person_id)))
        .collect();
    let in_bundle: HashSet<i64> = meds.iter().map(|m| m.id).collect();

    let bundle_id = uuid_for(user_id, "bundle", person_id.unwrap_or(0));
    write!(
        out,
        "{{\"resourceType\":\"Bundle\",\"id\":{},\"meta\":{{\"lastUpdated\":{}}},\"type\":\"collection\",\"timestamp\":{},\"entry\":[",
        json!(bundle_id),
        json!(crate::clock::stamp(now)),
        json!(crate::clock::stamp(now)),
    )?;
    let mut first = true;
    let mut put = |out: &mut dyn Write, value: Value| -> ServiceResult<()> {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        first = false;
        serde_json::to_writer(&mut *out, &value).map_err(std::io::Error::from)?;
        Ok(())
    };

    for p in &chosen {
        put(out, patient(user_id, p))?;
    }
    for m in &meds {
        let strength = medications::inventory(&tx, m.id)?
            .as_ref()
            .and_then(|inv| strength_of(inv, &m.unit));
        put(out, medication(user_id, m.id, &m.name, &m.unit, strength))?;
        let med = Ref::new(user_id, "medication", m.id);
        let request = Ref::new(user_id, "schedule", m.id);
        let subject = Ref::new(user_id, "person", m.person_id);
        let last = last_day(m);
        let ended = last.is_some_and(|last| last < today);
        let mut resource = json!({
            "resourceType": "MedicationRequest",
            "id": request.id,
            "status": if ended { "stopped" } else { "active" },
            "intent": "plan",
            "medicationReference": med.reference(),
            "subject": subject.reference(),
            "authoredOn": m.created_at.to_string(),
            "dosageInstruction": dosage_instructions(m, &clock),
        });
        if let (Some(p), Value::Object(fields)) = (prescriptions::find(&tx, m.id)?, &mut resource) {
            prescribed(fields, &p);
        }
        put(out, entry(&request, resource))?;
        let statement = Ref::new(user_id, "statement", m.id);
        let mut period = Map::new();
        period.insert("start".into(), json!(m.start_date.to_string()));
        if let Some(last) = last {
            period.insert("end".into(), json!(last.to_string()));
        }
        put(
            out,
            entry(
                &statement,
                json!({
                    "resourceType": "MedicationStatement",
                    "id": statement.id,
                    "status": if ended { "completed" } else { "active" },
                    "basedOn": [request.reference()],
                    "medicationReference": med.reference(),
                    "subject": subject.reference(),
                    "effectivePeriod": period,
                    "dateAsserted": m.updated_at.to_string(),
                }),
            ),
        )?;
    }

    // Deleted medications whose history is kept: a Medication and a stopped statement each,
    // for the entries that name them.
    let mut deleted: HashMap<(String, String), i64> = HashMap::new();
    for (index, d) in history::deleted_medications(&tx, user_id)?
        .into_iter()
        .enumerate()
    {
        deleted.insert((d.name.clone(), d.unit.clone()), -(index as i64 + 1));
    }
    let mut deleted_written: HashSet<i64> = HashSet::new();

    history::for_each_exported(&tx, user_id, |row| -> ServiceResult<()> {
        let (medication_id, live) = match row.medication_id {
            Some(id) => (Some(id), true),
            None => (
                deleted
                    .get(&(row.medication_name.clone(), row.medication_unit.clone()))
                    .copied(),
                false,
            ),
        };
        let person = row
            .person_id
            .or_else(|| row.medication_id.and_then(|id| med_person.get(&id).copied()))
            .or(self_id);
        // A dose of one person's medication logged for another (the medication moved since)
        // is left out of a one-person export, whose bundle does not hold that medication.
        if !wanted(person) || (live && medication_id.is_some_and(|id| !in_bundle.contains(&id))) {
            return Ok(());
        }
        let Some(person) = person else { return Ok(()) };
        let Some(medication_id) = medication_id else {
            return Ok(());
        };
        if !live && deleted_written.insert(medication_id) {
            put(
                out,
                medication(
                    user_id,
                    medication_id,
                    &row.medication_name,
                    &row.medication_unit,
                    None,
                ),
            )?;
        }
        let r = Ref::new(user_id, "entry", row.id);
        let mut a = Map::new();
        a.insert("resourceType".into(), json!("MedicationAdministration"));
        a.insert("id".into(), json!(r.id));
        let status = row.status.parse::<DoseStatus>().ok();
        match status {
            Some(DoseStatus::Taken) => {
                a.insert("status".into(), json!("completed"));
            }
            Some(DoseStatus::Skipped) => {
                a.insert("status".into(), json!("not-done"));
                a.insert("statusReason".into(), json!([{ "text": "Skipped" }]));
            }
            Some(DoseStatus::Missed) => {
                a.insert("status".into(), json!("not-done"));
                a.insert(
                    "statusReason".into(),
                    json!([{ "text": "Missed: not logged in time" }]),
                );
            }
            None => {
                a.insert("status".into(), json!("unknown"));
            }
        }
        a.insert(
            "medicationReference".into(),
            Ref::new(user_id, "medication", medication_id).reference(),
        );
        a.insert("subject".into(), Ref::new(user_id, "person", person).reference());
        a.insert("effectiveDateTime".into(), json!(row.taken.to_string()));
        if let Some(name) = row.logged_by_name.as_deref().filter(|n| !n.trim().is_empty()) {
            a.insert("performer".into(), json!([{ "actor": { "display": name } }]));
        }
        if live {
            a.insert(
                "request".into(),
                Ref::new(user_id, "schedule", medication_id).reference(),
            );
        }
        if let Some(note) = row.dosage.as_deref().filter(|n| !n.trim().is_empty()) {
            a.insert("note".into(), json!([{ "text": note }]));
        }
        a.insert(
            "dosage".into(),
            json!({ "dose": quantity(row.quantity, &row.dosage_unit) }),
        );
        put(out, entry(&r, Value::Object(a)))
    })?;
    out.write_all(b"\n]}\n")?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_uuids_that_differ_by_account_kind_and_row() {
        let a = uuid_for(1, "medication", 7);
        assert_eq!(a, uuid_for(1, "medication", 7));
        assert_ne!(a, uuid_for(2, "medication", 7));
        assert_ne!(a, uuid_for(1, "schedule", 7));
        assert_ne!(a, uuid_for(1, "medication", 8));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "8", "version 8: {a}");
        assert!(
            matches!(&a[19..20], "8" | "9" | "a" | "b"),
            "RFC 4122 variant: {a}"
        );
    }
}

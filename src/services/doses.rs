//! Doses: recording one (from the app or a reminder's take link), correcting and deleting
//! history entries. Each moves the stock with its ledger row and answers the reminder it
//! belongs to, in one transaction.

use std::collections::HashMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::access::{self, Access};
use super::stock::{self, StockLevel, StockWarning};
use super::{ErrorCode, Problem, ServiceError, ServiceResult, invalid, not_found, rejected};
use crate::clock;
use crate::db::Stamp;
use crate::domain::dose::{DoseStatus, EntryId};
use crate::domain::limits;
use crate::domain::medication::{FUTURE_SKEW_SECS, MAX_SHORT_TEXT, MedicationId, limited_text};
use crate::domain::quantity::Quantity;
use crate::services::planner::{self, UserClock};
use crate::store::history::{self, Entry, Filter, LoggedBy};
use crate::store::medications::{self, Medication};
use crate::store::{Count, people, reminders};

/// A dose to record against a medication.
pub struct NewDose {
    pub status: DoseStatus,
    pub taken: DateTime<Utc>,
    pub quantity: Quantity,
    pub dosage_unit: String,
    pub dosage: Option<String>,
    /// The planned reminder this dose answers.
    pub dosage_id: Option<i64>,
    /// Without `dosage_id`: whether the entry answers the nearest due or coming reminder
    /// (false when the person named a planned dose that has none).
    pub answer_nearest: bool,
    pub affect_inventory: bool,
    /// Who logged it (none for what the engine records by itself, a missed dose).
    pub logged_by: Option<LoggedBy>,
}

/// A signed-in user as the logger of a dose.
pub fn logger(conn: &Connection, user_id: i64) -> ServiceResult<LoggedBy> {
    let actor = access::actor(conn, user_id)?;
    Ok(LoggedBy {
        user_id: Some(actor.user_id),
        name: actor.name,
    })
}

/// A recorded dose: the entry, with what kept it from moving the stock as asked, if anything.
#[derive(Debug, Serialize, ToSchema)]
pub struct Recorded {
    #[serde(flatten)]
    pub entry: Entry,
    #[serde(flatten)]
    pub warning: StockWarning,
}

/// Writes a dose to the history, moves the stock, and answers the reminder it belongs to,
/// all in the caller's transaction. The dose is always written, whatever the stock.
pub fn record_dose(
    conn: &Connection,
    user_id: i64,
    m: &Medication,
    dose: NewDose,
    now: DateTime<Utc>,
) -> ServiceResult<Recorded> {
    let mut entry = Entry {
        id: 0,
        medication_id: Some(m.id),
        medication_name: m.name.clone(),
        medication_unit: m.unit.clone(),
        status: dose.status,
        taken: Stamp::from(dose.taken),
        quantity: dose.quantity,
        dosage_unit: dose.dosage_unit,
        dosage: dose.dosage,
        affect_inventory: dose.affect_inventory,
        stock_used: Quantity::ZERO,
        dosage_id: dose.dosage_id,
        created_at: Stamp::from(now),
        person_id: m.person_id,
        logged_by: dose.logged_by,
    };
    entry.id = history::insert(conn, user_id, &entry)?;
    let warning = stock::settle(conn, user_id, &mut entry, now)?;
    history::update(conn, user_id, &entry)?;
    if entry.dosage_id.is_some() || dose.answer_nearest {
        reminders::answer(conn, user_id, m.id, entry.dosage_id, entry.taken, entry.id)?;
    }
    announce(conn, user_id, &entry, now)?;
    Ok(Recorded { entry, warning })
}

/// Tells the webhooks that want it: `dose.missed` for a dose the engine recorded missed,
/// `dose.logged` for every other entry.
fn announce(conn: &Connection, user_id: i64, entry: &Entry, now: DateTime<Utc>) -> ServiceResult<()> {
    let event = match entry.status {
        DoseStatus::Missed if entry.logged_by.is_none() => "dose.missed",
        _ => "dose.logged",
    };
    let message = serde_json::json!({
        "title": format!("{}: {}", entry.medication_name, entry.status),
        "body": "",
        "open_url": "",
        "data": {
            "entry_id": entry.id,
            "medication_id": entry.medication_id,
            "medication": entry.medication_name,
            "person_id": entry.person_id,
            "status": entry.status,
            "taken_at": entry.taken,
            "quantity": entry.quantity,
            "unit": entry.dosage_unit,
            "logged_by": entry.logged_by,
        },
    });
    crate::store::channels::queue_event(
        conn,
        user_id,
        event,
        &entry.medication_name,
        &message,
        &format!("msg_pillbox_entry_{}", entry.id),
        Stamp::from(now),
    )?;
    Ok(())
}

/// A status as sent; none means taken.
pub fn status(text: Option<&str>) -> ServiceResult<DoseStatus> {
    text.map_or(Ok(DoseStatus::Taken), |t| {
        t.parse().map_err(|e| invalid(format!("{e}")))
    })
}

/// A dose time as sent: RFC 3339; none or blank is none (now).
pub fn taken_at(text: Option<&str>) -> ServiceResult<Option<DateTime<Utc>>> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    DateTime::parse_from_rfc3339(text)
        .map(|t| Some(t.with_timezone(&Utc)))
        .map_err(|_| invalid("Please select both date and time"))
}

/// A dose time not in the future (a few minutes of clock skew allowed).
fn not_in_future(taken: DateTime<Utc>, now: DateTime<Utc>) -> ServiceResult<DateTime<Utc>> {
    if taken > now + Duration::seconds(FUTURE_SKEW_SECS) {
        return Err(rejected(
            ErrorCode::FutureDate,
            "Cannot add entries for future dates",
        ));
    }
    Ok(taken)
}

/// A dose amount: positive.
fn dose_quantity(quantity: Quantity) -> ServiceResult<Quantity> {
    if quantity.is_positive() {
        Ok(quantity)
    } else {
        Err(invalid(
            "Please enter a valid positive number for the dosage amount",
        ))
    }
}

/// The optional free-text dosage: trimmed, blank is none.
fn dosage_text(dosage: Option<String>) -> ServiceResult<Option<String>> {
    Ok(dosage
        .map(|d| limited_text(&d, MAX_SHORT_TEXT, "Dosage").map_err(invalid))
        .transpose()?
        .filter(|d| !d.is_empty()))
}

/// A dose logged in the app; what is left out comes from the medication.
pub struct DoseRequest {
    pub status: DoseStatus,
    /// None: now.
    pub taken: Option<DateTime<Utc>>,
    pub quantity: Option<Quantity>,
    pub dosage_unit: Option<String>,
    pub dosage: Option<String>,
    pub dosage_id: Option<i64>,
    /// The planned dose it is for, by its time, when that has no reminder.
    pub scheduled_time: Option<DateTime<Utc>>,
    pub affect_inventory: bool,
    /// Taken anyway, over the medication's as-needed limits.
    pub confirm: bool,
}

/// A logged dose with the stock it left.
#[derive(Debug, Serialize, ToSchema)]
pub struct Logged {
    pub entry: Entry,
    /// The stock after the dose; null without an inventory.
    #[schema(required = true)]
    pub inventory: Option<StockLevel>,
    #[serde(flatten)]
    pub warning: StockWarning,
}

/// Refuses a taken dose at `at` that breaks the medication's as-needed limits (409 with when
/// the next is allowed); the person may send it again confirmed.
fn within_limits(
    conn: &Connection,
    user_id: i64,
    m: &Medication,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> ServiceResult<()> {
    let clock = UserClock::at(conn, user_id, now)?;
    let reach = m.rules.reach();
    let (from, to) = (at - reach, at + reach);
    let taken = history::taken_between(conn, user_id, m.id, &clock::stamp(from), &clock::stamp(to))?;
    let Some(refusal) = m.rules.refuse(&taken, at) else {
        return Ok(());
    };
    let local = |t: DateTime<Utc>| t.with_timezone(&clock.tz);
    let (problem, next) = match refusal {
        limits::Refusal::TooSoon { next } => (
            Problem::new(
                ErrorCode::DoseTooSoon,
                format!(
                    "Too soon for another dose of {}: the next is allowed at {}",
                    m.name,
                    local(next).format("%H:%M")
                ),
            ),
            next,
        ),
        limits::Refusal::DailyMaximum { max, next } => (
            Problem::new(
                ErrorCode::DailyMaximumReached,
                format!(
                    "{} doses of {} are the most in 24 hours: the next is allowed at {} on {}",
                    max,
                    m.name,
                    local(next).format("%H:%M"),
                    local(next).format("%Y-%m-%d")
                ),
            )
            .with_param("max", max),
            next,
        ),
    };
    Err(ServiceError::Conflict(
        problem
            .with_param("next_allowed_at", clock::stamp(next))
            .with_param("time", local(next).format("%H:%M").to_string()),
    ))
}

/// Logs a dose of a medication the user may record doses of (their own, or as a carer).
pub fn log(
    conn: &Connection,
    access: &Access,
    medication_id: MedicationId,
    dose: DoseRequest,
    now: DateTime<Utc>,
) -> ServiceResult<Logged> {
    let logged_by = logger(conn, access.user_id)?;
    let logged = log_as(conn, access, medication_id, dose, logged_by, now)?;
    access::audit(conn, access, "dose.logged", &logged.entry.medication_name, now)?;
    Ok(logged)
}

/// `log`, with the logger named by the caller (Home Assistant's buttons); writes no audit
/// line.
pub fn log_as(
    conn: &Connection,
    access: &Access,
    medication_id: MedicationId,
    dose: DoseRequest,
    logged_by: LoggedBy,
    now: DateTime<Utc>,
) -> ServiceResult<Logged> {
    let user_id = access.owner_id;
    let taken = not_in_future(dose.taken.unwrap_or(now), now)?;
    let dosage = dosage_text(dose.dosage)?;
    let m = medications::find(conn, user_id, medication_id.0)?
        .ok_or_else(|| not_found(ErrorCode::MedicationNotFound, "Medication not found"))?;
    if let Some(reminder) = dose.dosage_id
        && reminders::find(conn, user_id, reminder)?.is_none_or(|r| r.medication_id != Some(m.id))
    {
        return Err(not_found(
            ErrorCode::NotificationNotFound,
            "Notification not found",
        ));
    }
    // A planned dose named by its time answers its reminder, and no other. One past when
    // reminders were planned has none: it gets a row of its own, which the entry answers,
    // so that the next dose's grace pass does not take the entry for its own.
    let dosage_id = match (dose.dosage_id, dose.scheduled_time) {
        (None, Some(at)) => match reminders::open_dose_at(conn, user_id, m.id, Stamp::from(at))? {
            Some(id) => Some(id),
            None if at <= now => reminders::insert_unsent_dose(
                conn,
                user_id,
                m.id,
                &m.name,
                Stamp::from(at),
                Stamp::from(now),
            )?,
            None => None,
        },
        (named, _) => named,
    };
    // Without a quantity, the usual dose (the day's step under a tapering plan).
    let usual = planner::dose_quantity(conn, user_id, &m, taken, now)?;
    let quantity = dose_quantity(dose.quantity.unwrap_or(usual))?;
    let dosage_unit = stock::unit(dose.dosage_unit.as_deref().unwrap_or(&m.unit))?;
    if dose.status == DoseStatus::Taken && !dose.confirm && m.rules.has_limits() {
        within_limits(conn, user_id, &m, taken, now)?;
    }
    let recorded = record_dose(
        conn,
        user_id,
        &m,
        NewDose {
            status: dose.status,
            taken,
            quantity,
            dosage_unit,
            dosage,
            dosage_id,
            answer_nearest: dose.scheduled_time.is_none(),
            affect_inventory: dose.affect_inventory,
            logged_by: Some(logged_by),
        },
        now,
    )?;
    Ok(Logged {
        inventory: stock::level(conn, recorded.entry.medication_id)?,
        entry: recorded.entry,
        warning: recorded.warning,
    })
}

fn entry_not_found() -> super::ServiceError {
    not_found(ErrorCode::EntryNotFound, "History entry not found")
}

/// A correction to a history entry; what is none stays.
#[derive(Default)]
pub struct EntryChange {
    pub status: Option<DoseStatus>,
    pub taken: Option<DateTime<Utc>>,
    pub quantity: Option<Quantity>,
    pub dosage_unit: Option<String>,
    /// Blank clears the note.
    pub dosage: Option<String>,
}

/// Corrects an entry; switching to or from taken moves the stock with a ledger row.
pub fn update_entry(
    conn: &Connection,
    access: &Access,
    id: EntryId,
    change: EntryChange,
    now: DateTime<Utc>,
) -> ServiceResult<Logged> {
    let user_id = access.owner_id;
    let mut entry = history::find(conn, user_id, id.0)?.ok_or_else(entry_not_found)?;
    let stock_relevant = |e: &Entry| (e.status, e.quantity, e.dosage_unit.clone());
    let before = stock_relevant(&entry);
    let was_taken_at = entry.taken;
    if let Some(status) = change.status {
        entry.status = status;
    }
    if let Some(taken) = change.taken {
        entry.taken = Stamp::from(not_in_future(taken, now)?);
    }
    if let Some(quantity) = change.quantity {
        entry.quantity = dose_quantity(quantity)?;
    }
    if let Some(unit) = change.dosage_unit {
        entry.dosage_unit = stock::unit(&unit)?;
    }
    if change.dosage.is_some() {
        entry.dosage = dosage_text(change.dosage)?;
    }
    // Stock moves only when what the dose took changes; editing the time or the note of an
    // old entry never re-prices it against today's inventory settings. A taken dose whose
    // amount changes is a correction, and the ledger says so.
    let (was_status, was_quantity, was_unit) = before;
    let warning = if stock_relevant(&entry) == (was_status, was_quantity, was_unit.clone()) {
        StockWarning::default()
    } else if was_status == DoseStatus::Taken && entry.status == DoseStatus::Taken {
        stock::correct(conn, user_id, &mut entry, (was_quantity, &was_unit), now)?
    } else {
        stock::settle(conn, user_id, &mut entry, now)?
    };
    history::update(conn, user_id, &entry)?;
    // Moved to another time, the entry answers the dose of that time instead: the slot it
    // answered is open again (and shown so), and the one it now belongs to is handled.
    if entry.taken != was_taken_at {
        reminders::reopen(conn, user_id, entry.id)?;
        if let Some(medication_id) = entry.medication_id {
            reminders::answer(conn, user_id, medication_id, None, entry.taken, entry.id)?;
        }
    }
    access::audit(conn, access, "dose.edited", &entry.medication_name, now)?;
    Ok(Logged {
        inventory: stock::level(conn, entry.medication_id)?,
        entry,
        warning,
    })
}

/// Deletes an entry and gives back the stock it used; answers the stock left.
pub fn delete_entry(
    conn: &Connection,
    access: &Access,
    id: EntryId,
    now: DateTime<Utc>,
) -> ServiceResult<Option<StockLevel>> {
    let user_id = access.owner_id;
    let mut entry = history::find(conn, user_id, id.0)?.ok_or_else(entry_not_found)?;
    stock::release(conn, user_id, &mut entry, now)?;
    history::delete(conn, user_id, id.0)?;
    access::audit(conn, access, "dose.deleted", &entry.medication_name, now)?;
    stock::level(conn, entry.medication_id)
}

const DEFAULT_PAGE_SIZE: i64 = 20;
const MAX_PAGE_SIZE: i64 = 100;

/// A page of the history (or of a stock ledger): how many rows, from where.
#[derive(Debug, Clone, Copy)]
pub struct Paging {
    pub limit: i64,
    pub offset: i64,
}

impl Paging {
    /// From the query's numbers: `offset` wins over `page` (counted from 1).
    pub fn new(limit: Option<i64>, offset: Option<i64>, page: Option<i64>) -> ServiceResult<Paging> {
        let limit = limit.unwrap_or(DEFAULT_PAGE_SIZE);
        if !(1..=MAX_PAGE_SIZE).contains(&limit) {
            return Err(invalid(format!("limit must be between 1 and {MAX_PAGE_SIZE}")));
        }
        let offset = match (offset, page) {
            (Some(offset), _) => offset,
            (None, Some(page)) if page >= 1 => (page - 1).saturating_mul(limit),
            (None, Some(_)) => return Err(invalid("page must be 1 or more")),
            (None, None) => 0,
        };
        if offset < 0 {
            return Err(invalid("offset cannot be negative"));
        }
        Ok(Paging { limit, offset })
    }
}

/// Which entries to list.
#[derive(Debug, Default)]
pub struct HistoryFilter {
    pub status: Option<DoseStatus>,
    pub medication_id: Option<i64>,
    /// `YYYY-MM-DD` (local) or an RFC 3339 instant, inclusive.
    pub date_from: Option<String>,
    /// `YYYY-MM-DD` (local, the whole day) or an RFC 3339 instant.
    pub date_to: Option<String>,
}

/// Where a page sits in the whole list (of history entries or ledger rows).
#[derive(Debug, Serialize, ToSchema)]
// Named apart from the notification lists' simpler `Pagination`, which would shadow it in
// the document.
#[schema(as = PagePosition)]
pub struct Pagination {
    /// How many rows there are; when `total_exact` is false, at least this many (counting
    /// stopped there).
    pub total: i64,
    /// False when `total` (and so `pages`) is a lower bound: a long list is counted only
    /// some way past this page.
    pub total_exact: bool,
    /// Whether entries follow this page.
    pub has_more: bool,
    pub limit: i64,
    pub offset: i64,
    pub page: i64,
    /// Pages in all, or as far as they were counted (see `total_exact`); at least 1.
    pub pages: i64,
}

impl Pagination {
    pub fn of(paging: Paging, count: Count) -> Pagination {
        let pages = count.total.saturating_add(paging.limit - 1) / paging.limit;
        Pagination {
            total: count.total,
            total_exact: count.exact,
            has_more: count.total > paging.offset.saturating_add(paging.limit),
            limit: paging.limit,
            offset: paging.offset,
            // Saturating: an offset near i64::MAX is an empty page, not an overflow.
            page: (paging.offset / paging.limit).saturating_add(1),
            pages: pages.max(1),
        }
    }
}

/// A date filter bound: `YYYY-MM-DD` in the user's zone, or an RFC 3339 instant.
fn bound(value: Option<&str>, clock: &UserClock, end_of_day: bool) -> ServiceResult<Option<String>> {
    let Some(text) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let day = if end_of_day {
            date.succ_opt().unwrap_or(date)
        } else {
            date
        };
        return Ok(Some(clock::stamp(clock.start_of(day))));
    }
    DateTime::parse_from_rfc3339(text)
        .map(|t| Some(clock::stamp(t.with_timezone(&Utc))))
        .map_err(|_| invalid("Dates must be written as YYYY-MM-DD"))
}

/// A history entry as the list shows it: with the name of the person whose dose it is.
#[derive(Debug, Serialize, ToSchema)]
pub struct ListedEntry {
    #[serde(flatten)]
    pub entry: Entry,
    /// Whose dose it is, by name (the list may hold several people's).
    pub person_name: String,
}

/// One page of the history `viewer` may see, newest first: one medication's (`within`), one
/// person's (`person`, their own or one they care for), or else everyone's they reach (their
/// own people and the people they care for), as Today shows them. Dates are read in the
/// zone of the account whose data it is (the viewer's own for everyone's).
pub fn history(
    conn: &Connection,
    caller: impl Into<access::Caller>,
    person: Option<i64>,
    within: Option<MedicationId>,
    filter: HistoryFilter,
    paging: Paging,
    now: DateTime<Utc>,
) -> ServiceResult<(Vec<ListedEntry>, Pagination)> {
    let caller = caller.into();
    let viewer = caller.user_id();
    // Every id asked for must be one the viewer may see: another account's medication or
    // person answers 404 as its own routes do, never an empty page that looks like no doses.
    let asked = filter.medication_id.map(MedicationId);
    if let (Some(_), Some(id)) = (within, asked) {
        access::medication(conn, caller, id)?;
    }
    let medication = within.or(asked);
    let medication_owner = match medication {
        Some(id) => Some(access::medication(conn, caller, id)?.owner_id),
        None => None,
    };
    let person_owner = match person {
        Some(id) => Some(access::person(conn, caller, id)?.owner_id),
        None => None,
    };
    let (owner, cared_for) = match medication_owner.or(person_owner) {
        Some(owner) => (owner, Vec::new()),
        None => (
            viewer,
            access::reachable(conn, caller)?
                .into_iter()
                .filter(|reach| reach.owner_id != viewer)
                .map(|reach| reach.person_id)
                .collect(),
        ),
    };
    let clock = UserClock::at(conn, owner, now)?;
    let filter = Filter {
        status: filter.status,
        medication_id: medication.map(|id| id.0),
        person_id: person,
        cared_for,
        only_people: access::own_people(conn, caller)?,
        from: bound(filter.date_from.as_deref(), &clock, false)?,
        until: bound(filter.date_to.as_deref(), &clock, true)?,
    };
    let (entries, count) = history::page(conn, owner, &filter, paging.limit, paging.offset)?;
    let mut names: HashMap<i64, String> = HashMap::new();
    let mut listed = Vec::with_capacity(entries.len());
    for entry in entries {
        let person_name = match names.get(&entry.person_id) {
            Some(name) => name.clone(),
            None => {
                let name = people::name(conn, entry.person_id)?.unwrap_or_default();
                names.insert(entry.person_id, name.clone());
                name
            }
        };
        listed.push(ListedEntry { entry, person_name });
    }
    Ok((listed, Pagination::of(paging, count)))
}

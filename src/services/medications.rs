//! Medications: creating, changing, listing and deleting them with their schedules and
//! stock, today's doses, and adherence. Another person's ids are "not found".

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access::{self, Access, Role};
use super::prescriptions::{self, PrescriptionInput, PrescriptionView};
use super::report::{self, Adherence};
use super::stock::{self, InventoryInput, InventoryView, nullable};
use super::{ErrorCode, ServiceError, ServiceResult, invalid, not_found, rejected};
use crate::clock;
use crate::db::Stamp;
use crate::domain::dose::DoseStatus;
use crate::domain::escalation::Escalation;
use crate::domain::medication::{
    COLORS, DEFAULT_ICON, MAX_NAME, MAX_NOTES, MAX_SHORT_TEXT, MedicationId, limited_text,
};
use crate::domain::quantity::Quantity;
use crate::domain::schedule::{self, ClockKind, Frequency, Rules, Step, TimeOfDay};
use crate::domain::today::{
    Day, DoseOfToday, DoseState, Log, PlannedReminder, ScheduledDose, doses_of_today,
};
use crate::domain::units;
use crate::services::planner::{self, UserClock};
use crate::store::history::{self, Entry, RecentEntry};
use crate::store::medications::{self, Inventory, Medication};
use crate::store::prescriptions::{self as prescription_store, Prescription};
use crate::store::{notify_prefs, people, push_subscriptions, reminders, users};

/// Doses shown with each medication.
const RECENT_DOSES: usize = 5;

fn medication_not_found() -> ServiceError {
    not_found(ErrorCode::MedicationNotFound, "Medication not found")
}

/// A text field: trimmed, with a length limit.
fn text(value: &str, max: usize, label: &str) -> ServiceResult<String> {
    limited_text(value, max, label).map_err(invalid)
}

/// What the server needs to know about itself to show a medication: whether e-mail can
/// reach people (else an e-mail-only reminder warns).
#[derive(Debug, Clone, Copy)]
pub struct Reach {
    pub email_available: bool,
}

/// A medication's schedule as sent; what is absent stays.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct ScheduleInput {
    /// Times of day, `HH:MM`, at most 12.
    #[schema(value_type = Option<Vec<TimeOfDay>>, max_items = 12)]
    times: Option<Vec<String>>,
    /// ISO weekdays, 1 (Monday) to 7 (Sunday).
    #[schema(value_type = Option<Vec<u8>>)]
    weekdays: Option<Vec<u32>>,
    #[schema(schema_with = start_date)]
    start_date: Option<String>,
    /// Every N hours (1–24) from the first time of day (`times[0]`, else the default
    /// reminder time): "every 8 hours from 06:00". On the wall clock N must divide 24.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, nullable, minimum = 1, maximum = 24)]
    interval_hours: Option<Option<u32>>,
    /// Every N days from the start date (daily and twice-daily schedules).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, nullable, minimum = 1, maximum = 366)]
    every_days: Option<Option<u32>>,
    /// Days on in a cycle from the start date ("21 days on, 7 off"); with `cycle_off_days`.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, nullable, minimum = 1, maximum = 366)]
    cycle_on_days: Option<Option<u32>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, nullable, minimum = 1, maximum = 366)]
    cycle_off_days: Option<Option<u32>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(schema_with = end_date)]
    end_date: Option<Option<String>>,
    /// A tapering plan taken in order from the start date; nothing is due after the last
    /// step. An empty list removes it.
    #[schema(max_items = 24)]
    steps: Option<Vec<Step>>,
    /// The most doses taken in any 24 hours; more answers 409 `daily_maximum_reached`
    /// unless confirmed.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, nullable, minimum = 1, maximum = 48)]
    max_per_day: Option<Option<u32>>,
    /// The least minutes between two doses taken; sooner answers 409 `dose_too_soon`
    /// unless confirmed.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, nullable, minimum = 1, maximum = 1440)]
    min_gap_minutes: Option<Option<u32>>,
    /// `wall` (the default) or `elapsed` (the default of interval schedules).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<ClockKind>, nullable)]
    clock: Option<Option<ClockKind>>,
    /// Minutes after its time before an unlogged dose is recorded as missed (1–720, default 60).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, nullable, minimum = 1, maximum = 720)]
    grace_minutes: Option<Option<u32>>,
    /// Follow-up reminders for this medication; null means the person's own setting.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, nullable, minimum = 1, maximum = 1440)]
    repeat_every_minutes: Option<Option<u32>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, nullable, minimum = 0, maximum = 10)]
    repeat_times: Option<Option<u32>>,
}

/// The document's `start_date` (a day; null keeps it).
fn start_date() -> utoipa::openapi::schema::Object {
    crate::domain::api_schema::day(true, "`YYYY-MM-DD`.")
}

/// The document's `end_date`: a day, or null for none.
fn end_date() -> utoipa::openapi::schema::Object {
    crate::domain::api_schema::day(
        true,
        "`YYYY-MM-DD`: the last day with doses (a course that ends by itself).",
    )
}

/// A medication as sent to create or change it; what is absent stays (or takes its default).
#[derive(Debug, Deserialize, ToSchema)]
pub struct MedicationInput {
    /// Required for a new medication.
    #[schema(min_length = 1, max_length = 200)]
    name: Option<String>,
    /// A unit of the catalogue (`/api/units`).
    unit: Option<String>,
    #[schema(value_type = Option<Frequency>)]
    frequency: Option<String>,
    /// One of `blue`, `red`, `green`, `yellow`, `purple`, `pink`, `orange`.
    #[schema(pattern = "^(blue|red|green|yellow|purple|pink|orange)$")]
    color: Option<String>,
    #[schema(max_length = 64)]
    icon: Option<String>,
    #[schema(max_length = 2000)]
    notes: Option<String>,
    /// The usual dose, in `unit`; positive, with at most three decimals.
    #[schema(value_type = Option<f64>, minimum = 0.001, maximum = 999999999, multiple_of = 0.001)]
    default_quantity: Option<Quantity>,
    schedule: Option<ScheduleInput>,
    inventory: Option<InventoryInput>,
    /// Whose medicine it is (`GET /api/people`): one of your own people, or a person you
    /// care for with the `manage` role. Default on a new medication: you. On a change, the
    /// owner may move it to another of their own people.
    person_id: Option<i64>,
    /// Missed-dose escalation: which carers are told, and after how many minutes, when a
    /// planned dose is not logged. Null turns it off; absent leaves it as it is.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Escalation>, nullable)]
    escalation: Option<Option<Escalation>>,
    /// Its prescription: prescriber, pharmacy, expiry, refills. Sent, it replaces the one
    /// before; null removes it; absent leaves it as it is.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<PrescriptionInput>, nullable)]
    prescription: Option<Option<PrescriptionInput>>,
}

/// The body that adds a medication: a `MedicationInput` whose name and unit are required (the
/// rest take their defaults). Only documents it: the handler reads a `MedicationInput`, so that
/// a missing name or unit answers SPEC's own message.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct NewMedicationInput {
    #[schema(min_length = 1, max_length = 200)]
    name: String,
    /// A unit of the catalogue (`/api/units`).
    unit: String,
    #[serde(flatten)]
    rest: MedicationInput,
}

/// Applies the input's fields over `m` and validates the result (SPEC §5 messages).
fn apply(m: &mut Medication, input: MedicationInput) -> ServiceResult<()> {
    if let Some(name) = input.name {
        m.name = text(&name, MAX_NAME, "Name")?;
    }
    if m.name.is_empty() {
        return Err(rejected(ErrorCode::NameRequired, "Name is required"));
    }
    if let Some(unit) = input.unit {
        m.unit = unit.trim().to_owned();
    }
    m.unit = units::canonical(&m.unit)?;
    if let Some(frequency) = input.frequency {
        let frequency: Frequency = frequency.trim().parse().map_err(|e| invalid(format!("{e}")))?;
        m.frequency = frequency.as_str().to_owned();
    }
    if let Some(color) = input.color {
        if !COLORS.contains(&color.trim()) {
            return Err(invalid(format!("Color must be one of {}", COLORS.join(", "))));
        }
        m.color = color.trim().to_owned();
    }
    if let Some(icon) = input.icon {
        let icon = text(&icon, MAX_SHORT_TEXT, "Icon")?;
        m.icon = if icon.is_empty() {
            DEFAULT_ICON.to_owned()
        } else {
            icon
        };
    }
    if let Some(notes) = input.notes {
        m.notes = text(&notes, MAX_NOTES, "Notes")?;
    }
    if let Some(quantity) = input.default_quantity {
        if !quantity.is_positive() {
            return Err(invalid(
                "Please enter a valid positive number for the dosage amount",
            ));
        }
        m.default_quantity = quantity;
    }
    if let Some(escalation) = input.escalation {
        m.escalation = match escalation {
            Some(mut e) => {
                e.normalise();
                e.check()
                    .map_err(|message| rejected(ErrorCode::EscalationInvalid, message))?;
                Some(e)
            }
            None => None,
        };
    }
    if let Some(s) = input.schedule {
        if let Some(times) = s.times {
            let parsed = schedule::parse_times(&times).map_err(invalid)?;
            m.schedule_times = parsed
                .into_iter()
                .map(|t| TimeOfDay::from(t).to_string())
                .collect();
        }
        if let Some(weekdays) = s.weekdays {
            let parsed = schedule::parse_weekdays(&weekdays).map_err(invalid)?;
            m.schedule_weekdays = parsed.iter().map(|d| d.number_from_monday()).collect();
        }
        if let Some(start) = s.start_date {
            m.start_date = NaiveDate::parse_from_str(start.trim(), "%Y-%m-%d")
                .map_err(|_| invalid("Start date must be written as YYYY-MM-DD"))?;
        }
        let r = &mut m.rules;
        for (field, value) in [
            (&mut r.interval_hours, s.interval_hours),
            (&mut r.every_days, s.every_days),
            (&mut r.cycle_on_days, s.cycle_on_days),
            (&mut r.cycle_off_days, s.cycle_off_days),
            (&mut r.max_per_day, s.max_per_day),
            (&mut r.min_gap_minutes, s.min_gap_minutes),
            (&mut r.grace_minutes, s.grace_minutes),
            (&mut r.repeat_every_minutes, s.repeat_every_minutes),
            (&mut r.repeat_times, s.repeat_times),
        ] {
            if let Some(value) = value {
                *field = value;
            }
        }
        if let Some(clock) = s.clock {
            r.clock = clock;
        }
        if let Some(end) = s.end_date {
            r.end_date = end
                .map(|e| NaiveDate::parse_from_str(e.trim(), "%Y-%m-%d"))
                .transpose()
                .map_err(|_| invalid("End date must be written as YYYY-MM-DD"))?;
        }
        if let Some(steps) = s.steps {
            r.steps = steps;
        }
    }
    let frequency = Frequency::parse(&m.frequency).unwrap_or(Frequency::Daily);
    m.rules.check(frequency, m.start_date).map_err(invalid)?;
    Ok(())
}

/// Fixes an elapsed schedule's first dose as an instant, in the zone the person is in when
/// they set its times or start (so that a later trip does not move its doses); a wall-clock
/// schedule has none.
fn anchor(m: &mut Medication, before: Option<&Medication>, clock: &UserClock) {
    if m.rules.clock() == ClockKind::Wall {
        m.rules.anchor = None;
        return;
    }
    let unchanged = before.is_some_and(|b| {
        b.rules.anchor.is_some()
            && b.schedule_times == m.schedule_times
            && b.start_date == m.start_date
            && b.frequency == m.frequency
            && b.rules.interval_hours == m.rules.interval_hours
            && b.rules.clock() == ClockKind::Elapsed
    });
    if unchanged {
        return;
    }
    m.rules.anchor = planner::first_dose(m, clock);
}

/// A medication's schedule as shown: as set, and with the defaults filled in.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScheduleView {
    /// Times of day as set (`HH:MM`); empty means the defaults.
    pub times: Vec<String>,
    pub weekdays: Vec<u32>,
    pub start_date: String,
    /// The times a dose is due, defaults filled in.
    pub effective_times: Vec<String>,
    pub effective_weekdays: Vec<u32>,
    #[schema(required = true)]
    pub interval_hours: Option<u32>,
    #[schema(required = true)]
    pub every_days: Option<u32>,
    #[schema(required = true)]
    pub cycle_on_days: Option<u32>,
    #[schema(required = true)]
    pub cycle_off_days: Option<u32>,
    /// `YYYY-MM-DD`, the last day with doses.
    #[schema(required = true)]
    pub end_date: Option<String>,
    pub steps: Vec<Step>,
    #[schema(required = true)]
    pub max_per_day: Option<u32>,
    #[schema(required = true)]
    pub min_gap_minutes: Option<u32>,
    /// The clock in force.
    pub clock: ClockKind,
    /// The grace in force (the default when unset).
    pub grace_minutes: u32,
    /// Null: the person's own follow-up setting.
    #[schema(required = true)]
    pub repeat_every_minutes: Option<u32>,
    #[schema(required = true)]
    pub repeat_times: Option<u32>,
}

impl ScheduleView {
    pub fn of(m: &Medication, clock: &UserClock) -> ScheduleView {
        let summary = report::schedule_summary(m, clock);
        ScheduleView {
            times: m.schedule_times.clone(),
            weekdays: m.schedule_weekdays.clone(),
            start_date: m.start_date.to_string(),
            effective_times: summary.effective_times,
            effective_weekdays: summary.effective_weekdays,
            interval_hours: m.rules.interval_hours,
            every_days: m.rules.every_days,
            cycle_on_days: m.rules.cycle_on_days,
            cycle_off_days: m.rules.cycle_off_days,
            end_date: m.rules.end_date.map(|d| d.to_string()),
            steps: m.rules.steps.clone(),
            max_per_day: m.rules.max_per_day,
            min_gap_minutes: m.rules.min_gap_minutes,
            clock: m.rules.clock(),
            grace_minutes: m.rules.grace_minutes(),
            repeat_every_minutes: m.rules.repeat_every_minutes,
            repeat_times: m.rules.repeat_times,
        }
    }
}

/// One of a medication's latest doses.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecentDose {
    pub id: i64,
    pub status: DoseStatus,
    #[schema(value_type = String)]
    pub taken: Stamp,
    pub quantity: Quantity,
    pub dosage_unit: String,
}

impl From<RecentEntry> for RecentDose {
    fn from(e: RecentEntry) -> RecentDose {
        RecentDose {
            id: e.id,
            status: e.status,
            taken: e.taken,
            quantity: e.quantity,
            dosage_unit: e.dosage_unit,
        }
    }
}

impl From<Entry> for RecentDose {
    fn from(e: Entry) -> RecentDose {
        RecentDose {
            id: e.id,
            status: e.status,
            taken: e.taken,
            quantity: e.quantity,
            dosage_unit: e.dosage_unit,
        }
    }
}

/// The full medication as the API shows it: schedule, inventory, recent doses and whether
/// its reminders can reach the person.
#[derive(Debug, Serialize, ToSchema)]
pub struct MedicationView {
    pub id: i64,
    pub name: String,
    pub unit: String,
    #[schema(value_type = Frequency)]
    pub frequency: String,
    pub color: String,
    pub icon: String,
    pub notes: String,
    pub default_quantity: Quantity,
    pub schedule: ScheduleView,
    #[schema(value_type = String)]
    pub created_at: Stamp,
    #[schema(value_type = String)]
    pub updated_at: Stamp,
    /// The latest doses, newest first.
    pub doses: Vec<RecentDose>,
    /// Null when no inventory was ever set up.
    #[schema(required = true)]
    pub inventory: Option<InventoryView>,
    /// Why its reminders can reach nobody: `no_push_device` (push is its way and no device
    /// is subscribed), `email_unavailable` (e-mail is its way and this server cannot send
    /// e-mail), `email_unverified` (the address is not verified), `no_method` (every method
    /// it uses is switched off), `channel_unavailable` (its only ways are channels, none of
    /// which can carry it now). Null when a reminder can arrive, or reminders are off.
    #[schema(value_type = Option<String>)]
    #[schema(required = true)]
    pub delivery_warning: Option<&'static str>,
    /// With as-needed limits: when the next dose is allowed, RFC 3339; it may lie in the
    /// past (then one is allowed now). Null without limits or doses that hold one back.
    #[schema(required = true, value_type = Option<String>)]
    pub next_dose_allowed_at: Option<Stamp>,
    /// Whose medicine it is.
    pub person_id: i64,
    /// Missed-dose escalation, or null when off.
    #[schema(required = true)]
    pub escalation: Option<Escalation>,
    /// Its prescription and what needs ordering; null without one.
    #[schema(required = true)]
    pub prescription: Option<PrescriptionView>,
}

/// What, besides the preferences, decides whether the user's reminders can arrive.
fn reachability(conn: &Connection, user_id: i64, reach: Reach) -> ServiceResult<notify_prefs::Reachability> {
    Ok(notify_prefs::Reachability {
        push_device: push_subscriptions::any_for_user(conn, user_id)?,
        email_available: reach.email_available,
        email_verified: users::email_verified(conn, user_id)?,
        usable_channels: crate::store::channels::list(conn, user_id)?
            .iter()
            .filter(|c| c.usable())
            .map(|c| c.id)
            .collect(),
    })
}

/// Why the medication's reminders can reach nobody (`no_push_device`, `email_unavailable`,
/// `email_unverified`, `no_method`, `channel_unavailable`), so the person learns why no
/// reminder comes.
fn delivery_warning(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    reach: Reach,
) -> ServiceResult<Option<&'static str>> {
    let global = notify_prefs::global(conn, user_id)?;
    let own = notify_prefs::for_medication(conn, medication_id)?;
    let reachability = reachability(conn, user_id, reach)?;
    Ok(notify_prefs::delivery_warning(&global, own.as_ref(), &reachability).map(|w| w.code()))
}

/// The delivery warning of each of the user's medications, read in a few queries.
fn delivery_warnings(
    conn: &Connection,
    user_id: i64,
    reach: Reach,
) -> ServiceResult<impl Fn(i64) -> Option<&'static str> + use<>> {
    let global = notify_prefs::global(conn, user_id)?;
    let own = notify_prefs::for_medications_of(conn, user_id)?;
    let reachability = reachability(conn, user_id, reach)?;
    Ok(move |medication_id| {
        notify_prefs::delivery_warning(&global, own.get(&medication_id), &reachability).map(|w| w.code())
    })
}

/// One medication, read on its own.
fn view_one(
    conn: &Connection,
    user_id: i64,
    m: Medication,
    clock: &UserClock,
    reach: Reach,
) -> ServiceResult<MedicationView> {
    let inventory = medications::inventory(conn, m.id)?;
    let prescription = prescription_store::find(conn, m.id)?;
    let doses = history::recent(conn, user_id, m.id, RECENT_DOSES as i64)?;
    let doses = doses.into_iter().map(RecentDose::from).collect();
    let warning = delivery_warning(conn, user_id, m.id, reach)?;
    let taken = match m.rules.has_limits() {
        true => {
            let (from, to) = limits_window(clock);
            history::taken_between(conn, user_id, m.id, &from, &to)?
        }
        false => Vec::new(),
    };
    let batches = crate::store::batches::list(conn, m.id)?;
    let batches: Vec<_> = batches.iter().collect();
    Ok(view(
        m,
        clock,
        (inventory.as_ref(), &batches),
        prescription.as_ref(),
        doses,
        warning,
        &taken,
    ))
}

/// The medication's view; its texts move into it (a list makes thousands of them).
fn view(
    m: Medication,
    clock: &UserClock,
    (inventory, batches): (Option<&Inventory>, &[&crate::store::batches::Batch]),
    prescription: Option<&Prescription>,
    doses: Vec<RecentDose>,
    delivery_warning: Option<&'static str>,
    taken: &[DateTime<Utc>],
) -> MedicationView {
    let schedule = ScheduleView::of(&m, clock);
    // Once per medication: the stock's forecast and the prescription's refill both use it.
    let runs_out_on = inventory.and_then(|inv| report::runs_out_on(&m, inv, clock));
    let prescription = prescription.map(|p| prescriptions::view(p, runs_out_on, clock.today()));
    // From the doses alone, not from now: the list changes when a dose is logged, not by
    // the minute (a moment already past is left for the app to drop).
    let next_dose_allowed_at = m.rules.next_allowed(taken).map(Stamp::from);
    let inventory = inventory
        .map(|inv| InventoryView::with_forecast(&m, inv, runs_out_on).with_batches(batches, clock.today()));
    MedicationView {
        id: m.id,
        name: m.name,
        unit: m.unit,
        frequency: m.frequency,
        color: m.color,
        icon: m.icon,
        notes: m.notes,
        default_quantity: m.default_quantity,
        schedule,
        created_at: m.created_at,
        updated_at: m.updated_at,
        doses,
        inventory,
        delivery_warning,
        next_dose_allowed_at,
        person_id: m.person_id,
        escalation: m.escalation,
        prescription,
    }
}

/// The doses the as-needed limits look at for "next allowed": from the day before
/// yesterday's start (more than the 24 hours the maximum counts and the longest gap, even
/// on a day that a clock change shortens) to tomorrow's end (no dose is logged later than a
/// few minutes from now). Both from the date, so the list's answer changes once a day, not
/// by the minute.
fn limits_window(clock: &UserClock) -> (String, String) {
    let from = clock.start_of(clock.today() - Duration::days(2));
    let to = clock.start_of(clock.today() + Duration::days(2));
    (clock::stamp(from), clock::stamp(to))
}

/// The person's medications and the day they were shown for (the date the stock's
/// "runs out on" counts from).
pub struct Listed {
    pub medications: Vec<MedicationView>,
    pub tz: chrono_tz::Tz,
    pub today: chrono::NaiveDate,
}

/// The person's medications, by name. A fixed number of queries however many there are.
/// `user_id` is the owning account's; `people` keeps only those of its people (None: all).
pub fn list(
    conn: &Connection,
    user_id: i64,
    people: Option<&[i64]>,
    reach: Reach,
    now: DateTime<Utc>,
) -> ServiceResult<Listed> {
    // One snapshot for all the queries: stock and doses agree, and the read locks are taken once.
    let tx = conn.unchecked_transaction()?;
    let clock = UserClock::at(&tx, user_id, now)?;
    let inventories = medications::inventories(&tx, user_id)?;
    let mut batches: HashMap<i64, Vec<crate::store::batches::Batch>> = HashMap::new();
    for b in crate::store::batches::of_user(&tx, user_id)? {
        batches.entry(b.medication_id).or_default().push(b);
    }
    let prescribed = prescription_store::of_user(&tx, user_id)?;
    let mut recent = history::recent_per_medication(&tx, user_id, RECENT_DOSES)?;
    let warning = delivery_warnings(&tx, user_id, reach)?;
    let mut list = medications::list(&tx, user_id)?;
    if let Some(people) = people {
        list.retain(|m| people.contains(&m.person_id));
    }
    let taken = match list.iter().any(|m| m.rules.has_limits()) {
        true => {
            let (from, to) = limits_window(&clock);
            history::taken_by_medication(&tx, user_id, &from, &to)?
        }
        false => HashMap::new(),
    };
    tx.commit()?;
    let medications = list
        .into_iter()
        .map(|m| {
            let doses = recent.remove(&m.id).unwrap_or_default();
            let doses = doses.into_iter().map(RecentDose::from).collect();
            let (inventory, warning) = (inventories.get(&m.id), warning(m.id));
            let taken = taken.get(&m.id).map_or(&[][..], Vec::as_slice);
            let batches: Vec<_> = batches.get(&m.id).map(|b| b.iter().collect()).unwrap_or_default();
            let prescription = prescribed.get(&m.id);
            view(
                m,
                &clock,
                (inventory, &batches),
                prescription,
                doses,
                warning,
                taken,
            )
        })
        .collect();
    Ok(Listed {
        medications,
        tz: clock.tz,
        today: clock.today(),
    })
}

pub fn get(
    conn: &Connection,
    user_id: i64,
    id: MedicationId,
    reach: Reach,
    now: DateTime<Utc>,
) -> ServiceResult<MedicationView> {
    let clock = UserClock::at(conn, user_id, now)?;
    let m = medications::find(conn, user_id, id.0)?.ok_or_else(medication_not_found)?;
    view_one(conn, user_id, m, &clock, reach)
}

/// A prescription as sent (null: remove it; absent: leave it), checked.
fn checked_prescription(
    sent: Option<Option<PrescriptionInput>>,
    now: DateTime<Utc>,
) -> ServiceResult<Option<Option<Prescription>>> {
    sent.map(|p| p.map(|p| prescriptions::checked(p, now)).transpose())
        .transpose()
}

/// Checks what a new medication must have before anything else.
fn check_new(input: &MedicationInput) -> ServiceResult<()> {
    if input.name.as_deref().is_none_or(|n| n.trim().is_empty()) {
        return Err(rejected(ErrorCode::NameRequired, "Name is required"));
    }
    if input.unit.as_deref().is_none_or(|u| u.trim().is_empty()) {
        return Err(rejected(ErrorCode::UnitRequired, "Unit is required"));
    }
    Ok(())
}

/// Creates a medication with its stock, and plans its reminders for `horizon_days`.
pub fn create(
    conn: &Connection,
    caller: impl Into<access::Caller>,
    mut input: MedicationInput,
    reach: Reach,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<MedicationView> {
    check_new(&input)?;
    let caller = caller.into();
    // Whose: the caller's own person unless another is named; either needs the manage role
    // (which an owner has, and an API token only with the manage scope).
    let person = match input.person_id {
        Some(id) => access::person(conn, caller, id)?,
        None => access::person(conn, caller, people::self_person(conn, caller.user_id())?)?,
    }
    .allow(Role::Manage)?;
    let user_id = person.owner_id;
    let inventory = input.inventory.take();
    // Checked before anything is written: a refused field makes no medication.
    let prescription = checked_prescription(input.prescription.take(), now)?;
    let clock = UserClock::at(conn, user_id, now)?;
    let stamp = Stamp::from(now);
    let mut m = Medication {
        id: 0,
        name: String::new(),
        unit: String::new(),
        frequency: Frequency::Daily.as_str().into(),
        color: "blue".into(),
        icon: DEFAULT_ICON.into(),
        notes: String::new(),
        default_quantity: Quantity::whole(1),
        schedule_times: Vec::new(),
        schedule_weekdays: Vec::new(),
        start_date: now.with_timezone(&clock.tz).date_naive(),
        created_at: stamp,
        updated_at: stamp,
        rules: Rules::default(),
        person_id: person.person_id,
        escalation: None,
    };
    apply(&mut m, input)?;
    check_escalation(conn, &mut m, None)?;
    anchor(&mut m, None, &clock);
    m.id = medications::insert(conn, user_id, &m)?;
    access::audit(conn, &person, "medication.created", &m.name, now)?;
    if let Some(inventory) = inventory {
        stock::apply(conn, &m, inventory, stamp)?;
    }
    if let Some(prescription) = prescription {
        prescriptions::apply(conn, m.id, prescription)?;
    }
    planner::plan_medication(conn, user_id, &m, &clock, horizon_days)?;
    view_one(conn, user_id, m, &clock, reach)
}

/// Changes a medication (and its stock, when sent) and plans its reminders again.
pub fn update(
    conn: &Connection,
    access: &Access,
    id: MedicationId,
    mut input: MedicationInput,
    reach: Reach,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<MedicationView> {
    let user_id = access.owner_id;
    let inventory = input.inventory.take();
    let prescription = checked_prescription(input.prescription.take(), now)?;
    let clock = UserClock::at(conn, user_id, now)?;
    let mut m = medications::find(conn, user_id, id.0)?.ok_or_else(medication_not_found)?;
    let before = m.clone();
    if let Some(person_id) = input.person_id.take().filter(|p| *p != m.person_id) {
        // Only the owner moves a medication, and only between their own people.
        access.allow(Role::Owner)?;
        let to = access::person(conn, access.user_id, person_id)?;
        if to.owner_id != user_id {
            return Err(access::person_not_found());
        }
        m.person_id = person_id;
        // Its doses go with it: who may read and change an entry follows the entry's person.
        history::reassign(conn, user_id, m.id, person_id)?;
    }
    let escalation_sent = input.escalation.is_some();
    apply(&mut m, input)?;
    if escalation_sent || m.person_id != before.person_id {
        check_escalation(conn, &mut m, before.escalation.as_ref())?;
    }
    anchor(&mut m, Some(&before), &clock);
    let unit_before = before.unit;
    m.updated_at = Stamp::from(now);
    medications::update(conn, user_id, &m)?;
    if let Some(inventory) = inventory {
        stock::apply(conn, &m, inventory, m.updated_at)?;
    } else if m.unit != unit_before
        && let Some(inv) = medications::inventory(conn, m.id)?.filter(|inv| inv.enabled)
    {
        // A new dose unit must still draw from the stock as it is counted.
        inv.containers.check_dose_unit(&m.unit)?;
    }
    if let Some(prescription) = prescription {
        prescriptions::apply(conn, m.id, prescription)?;
    }
    planner::plan_medication(conn, user_id, &m, &clock, horizon_days)?;
    access::audit(conn, access, "medication.updated", &m.name, now)?;
    view_one(conn, user_id, m, &clock, reach)
}

/// Removes the medication with its stock; its history stays unless `with_history`.
pub fn delete(
    conn: &Connection,
    access: &Access,
    id: MedicationId,
    with_history: bool,
    now: DateTime<Utc>,
) -> ServiceResult<()> {
    let m = medications::find(conn, access.owner_id, id.0)?.ok_or_else(medication_not_found)?;
    if !medications::delete(conn, access.owner_id, id.0, with_history)? {
        return Err(medication_not_found());
    }
    access::audit(conn, access, "medication.deleted", &m.name, now)
}

/// Every carer an escalation names must be an accepted carer of the medication's person who
/// may record doses (their take link records one). One who was in the setting before and has
/// since left, been revoked, lost the role or deleted their account is dropped quietly, so the
/// owner's next save is not refused for it; escalation with nobody left is off.
fn check_escalation(conn: &Connection, m: &mut Medication, before: Option<&Escalation>) -> ServiceResult<()> {
    let Some(escalation) = &mut m.escalation else {
        return Ok(());
    };
    let mut kept = Vec::with_capacity(escalation.carers.len());
    for &carer in &escalation.carers {
        let role = people::carer_role(conn, m.person_id, carer)?;
        if matches!(role.as_deref(), Some("record" | "manage")) {
            kept.push(carer);
        } else if !before.is_some_and(|b| b.carers.contains(&carer)) {
            return Err(ServiceError::Invalid(
                super::Problem::new(
                    ErrorCode::EscalationInvalid,
                    "Each carer told about a missed dose must be a carer of this person who may record doses (role record or manage)",
                )
                .with_param("carer", carer),
            ));
        }
    }
    escalation.carers = kept;
    if escalation.carers.is_empty() {
        m.escalation = None;
    }
    Ok(())
}

/// One day of the adherence chart.
#[derive(Debug, Serialize, ToSchema)]
pub struct DailyAdherence {
    /// `YYYY-MM-DD`, local.
    pub date: String,
    pub taken: u32,
    pub skipped: u32,
    pub missed: u32,
}

/// One medication's adherence over the last 7 and 30 days.
#[derive(Debug, Serialize, ToSchema)]
pub struct MedicationAdherence {
    pub medication_id: i64,
    pub name: String,
    pub color: String,
    /// Whose medication it is, and their name (the chart may show several people's).
    pub person_id: i64,
    pub person_name: String,
    pub last7: Adherence,
    pub last30: Adherence,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AdherenceView {
    pub medications: Vec<MedicationAdherence>,
    /// The last 30 local days, oldest first.
    pub daily: Vec<DailyAdherence>,
}

/// Adherence per medication over the last 7 and 30 days (local days), and a daily series
/// for the chart: of one person `viewer` can see (404 `person_not_found` otherwise), or of
/// everyone they reach (their own people and the people they care for), as Today shows them.
/// Days are the person's account's for one person, the viewer's for everyone.
pub fn adherence(
    conn: &Connection,
    caller: impl Into<access::Caller>,
    person: Option<i64>,
    now: DateTime<Utc>,
) -> ServiceResult<AdherenceView> {
    let caller = caller.into();
    let wanted = match person {
        Some(id) => vec![access::person(conn, caller, id)?],
        None => access::reachable(conn, caller)?,
    };
    let zone_of = wanted
        .first()
        .filter(|_| person.is_some())
        .map_or(caller.user_id(), |a| a.owner_id);
    let clock = UserClock::at(conn, zone_of, now)?;
    let today = now.with_timezone(&clock.tz).date_naive();
    let first_30 = today - Duration::days(29);
    let first_7 = today - Duration::days(6);
    let from = clock::stamp(clock.start_of(first_30));
    // Whose entries count, by the account that holds them, with each person's name.
    let mut by_owner: Vec<(i64, HashMap<i64, String>)> = Vec::new();
    for access in wanted {
        let name = people::find(conn, access.person_id)?
            .map(|p| p.name)
            .unwrap_or_default();
        match by_owner.iter_mut().find(|(owner, _)| *owner == access.owner_id) {
            Some((_, names)) => {
                names.insert(access.person_id, name);
            }
            None => by_owner.push((access.owner_id, HashMap::from([(access.person_id, name)]))),
        }
    }
    let mut rows = Vec::new();
    let mut daily = vec![Adherence::default(); 30];
    for (owner, names) in &by_owner {
        let mut meds = medications::list(conn, *owner)?;
        meds.retain(|m| names.contains_key(&m.person_id));
        let mut per_med: HashMap<i64, (Adherence, Adherence)> = HashMap::new();
        for row in history::since(conn, *owner, &from)? {
            if !names.contains_key(&row.person_id) {
                continue;
            }
            let day = row.taken.instant().with_timezone(&clock.tz).date_naive();
            let Ok(index) = usize::try_from((day - first_30).num_days()) else {
                continue;
            };
            if index >= daily.len() {
                continue;
            }
            let status = row.status.as_str();
            daily[index].add(status);
            if let Some(id) = row.medication_id {
                let entry = per_med.entry(id).or_default();
                entry.1.add(status);
                if day >= first_7 {
                    entry.0.add(status);
                }
            }
        }
        rows.extend(meds.iter().map(|m| {
            let (last7, last30) = per_med.get(&m.id).copied().unwrap_or_default();
            MedicationAdherence {
                medication_id: m.id,
                name: m.name.clone(),
                color: m.color.clone(),
                person_id: m.person_id,
                person_name: names.get(&m.person_id).cloned().unwrap_or_default(),
                last7,
                last30,
            }
        }));
    }
    let daily = daily
        .iter()
        .zip(0..)
        .map(|(t, i)| DailyAdherence {
            date: (first_30 + Duration::days(i)).to_string(),
            taken: t.taken,
            skipped: t.skipped,
            missed: t.missed,
        })
        .collect();
    Ok(AdherenceView {
        medications: rows,
        daily,
    })
}

/// Today's doses for one user, with the state their logs give them (see `domain::today`).
fn doses_today(
    conn: &Connection,
    user_id: i64,
    meds: &[Medication],
    clock: &UserClock,
    now: DateTime<Utc>,
) -> ServiceResult<Vec<DoseOfToday>> {
    let today = now.with_timezone(&clock.tz).date_naive();
    let yesterday = today.pred_opt().unwrap_or(today);
    let (from, today_from, until) = (
        clock.start_of(yesterday),
        clock.start_of(today),
        clock.start_of(today.succ_opt().unwrap_or(today)),
    );
    // Yesterday's doses take part so that a log just after midnight answers last night's
    // dose, as it answers last night's reminder.
    let doses: Vec<ScheduledDose> = meds
        .iter()
        .flat_map(|m| {
            planner::doses_of(m, clock, yesterday, 2, from - Duration::seconds(1))
                .into_iter()
                .map(|at| ScheduledDose {
                    medication_id: m.id,
                    at,
                })
        })
        .collect();
    let logs_from = clock::stamp(from - Duration::hours(1));
    let mut entries = history::between(conn, user_id, &logs_from, &clock::stamp(until))?;
    let mut found = Vec::new();
    for r in reminders::for_days(
        conn,
        user_id,
        &clock::stamp(from),
        &clock::stamp(until),
        &logs_from,
    )? {
        let at = r.scheduled_time.instant();
        // The answer to one of today's reminders counts whenever it says it was taken.
        if let Some(h) = r.history_id
            && at >= today_from
            && !entries.iter().any(|e| e.id == h)
            && let Some(entry) = history::find(conn, user_id, h)?
        {
            entries.push(entry);
        }
        let reminder = PlannedReminder {
            id: r.id,
            medication_id: r.medication_id,
            at,
            history_id: r.history_id,
        };
        found.push((r.kind == "dose", reminder));
    }
    // A planned dose reminder goes last, so it wins over a one-off set for the same dose.
    found.sort_by_key(|(planned, _)| *planned);
    let answered: HashSet<i64> = found.iter().filter_map(|(_, r)| r.history_id).collect();
    let planned: Vec<PlannedReminder> = found.into_iter().map(|(_, r)| r).collect();
    let logs: Vec<Log> = entries
        .iter()
        .filter_map(|e| {
            Some(Log {
                id: e.id,
                medication_id: e.medication_id?,
                status: DoseState::from(e.status),
                taken: e.taken.instant(),
            })
        })
        .collect();
    Ok(doses_of_today(&Day {
        doses: &doses,
        today_from,
        reminders: &planned,
        logs: &logs,
        answered_reminders: &answered,
        now,
    }))
}

/// One of today's scheduled doses.
#[derive(Debug, Serialize, ToSchema)]
pub struct TodayDose {
    pub medication_id: i64,
    /// Whose dose it is, and their name (the app shows it when several people have doses).
    pub person_id: i64,
    pub person_name: String,
    pub name: String,
    pub color: String,
    pub icon: String,
    pub unit: String,
    pub quantity: Quantity,
    /// The dose's instant, RFC 3339 UTC.
    #[schema(value_type = String)]
    pub scheduled_time: Stamp,
    /// The dose's time in the person's zone.
    pub local_time: TimeOfDay,
    pub status: DoseState,
    /// The entry that answered it.
    #[schema(required = true)]
    pub history_id: Option<i64>,
    /// When that entry was logged (RFC 3339 UTC): "Already taken at 6:00 AM".
    #[schema(required = true, value_type = Option<String>)]
    pub logged_at: Option<Stamp>,
    /// Its planned reminder, to log the dose against (`dosage_id`).
    #[schema(required = true)]
    pub reminder_id: Option<i64>,
    /// Why its reminders can reach nobody, as on the medication (`no_push_device`,
    /// `email_unavailable`, `email_unverified`, `no_method`, `channel_unavailable`), or null.
    #[schema(value_type = Option<String>)]
    #[schema(required = true)]
    pub delivery_warning: Option<&'static str>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TodayView {
    /// Today in the person's zone, `YYYY-MM-DD`.
    pub date: String,
    pub doses: Vec<TodayDose>,
}

/// Today's scheduled doses with their state: answered by a logged dose (through its
/// reminder, or the nearest one as the reminder engine matches them), else upcoming or due.
/// Each carries its planned reminder's id for logging it as `dosage_id`. Without `person`,
/// the doses of every person the user reaches and who is not archived (their own people and
/// the people they care for), each in its owner's zone; `date` is the user's today.
pub fn today(
    conn: &Connection,
    caller: impl Into<access::Caller>,
    person: Option<i64>,
    reach: Reach,
    now: DateTime<Utc>,
) -> ServiceResult<TodayView> {
    let caller = caller.into();
    let user_id = caller.user_id();
    let wanted = match person {
        Some(id) => vec![access::person(conn, caller, id)?],
        None => access::reachable(conn, caller)?,
    };
    // Whose doses, by owning account; an archived person is left out unless asked for.
    let mut by_owner: Vec<(i64, HashMap<i64, String>)> = Vec::new();
    for access in wanted {
        let Some(found) = people::find(conn, access.person_id)? else {
            continue;
        };
        if found.archived && person.is_none() {
            continue;
        }
        match by_owner.iter_mut().find(|(owner, _)| *owner == access.owner_id) {
            Some((_, names)) => {
                names.insert(access.person_id, found.name);
            }
            None => by_owner.push((access.owner_id, HashMap::from([(access.person_id, found.name)]))),
        }
    }
    let mut doses = Vec::new();
    for (owner, names) in &by_owner {
        doses.extend(today_of(conn, *owner, names, reach, now)?);
    }
    // By time, then by name, as the day reads.
    doses.sort_by_cached_key(|(at, d)| (*at, d.name.to_lowercase(), d.person_id, d.medication_id));
    let clock = UserClock::at(conn, user_id, now)?;
    Ok(TodayView {
        date: now.with_timezone(&clock.tz).date_naive().to_string(),
        doses: doses.into_iter().map(|(_, d)| d).collect(),
    })
}

/// Today's doses of an account's people named in `names`, in the account's zone.
fn today_of(
    conn: &Connection,
    user_id: i64,
    names: &HashMap<i64, String>,
    reach: Reach,
    now: DateTime<Utc>,
) -> ServiceResult<Vec<(DateTime<Utc>, TodayDose)>> {
    let clock = UserClock::at(conn, user_id, now)?;
    let mut meds = medications::list(conn, user_id)?;
    meds.retain(|m| names.contains_key(&m.person_id));
    if meds.is_empty() {
        return Ok(Vec::new());
    }
    let by_id: HashMap<i64, &Medication> = meds.iter().map(|m| (m.id, m)).collect();
    let doses: Vec<(DoseOfToday, &Medication)> = doses_today(conn, user_id, &meds, &clock, now)?
        .into_iter()
        .filter_map(|d| by_id.get(&d.medication_id).map(|m| (d, *m)))
        .collect();
    let warning = delivery_warnings(conn, user_id, reach)?;
    Ok(doses
        .into_iter()
        .map(|(dose, m)| {
            let today = TodayDose {
                medication_id: m.id,
                person_id: m.person_id,
                person_name: names.get(&m.person_id).cloned().unwrap_or_default(),
                name: m.name.clone(),
                color: m.color.clone(),
                icon: m.icon.clone(),
                unit: m.unit.clone(),
                quantity: planner::quantity_at(m, &clock, dose.at),
                scheduled_time: Stamp::from(dose.at),
                local_time: TimeOfDay::from(dose.at.with_timezone(&clock.tz).time()),
                status: dose.status,
                history_id: dose.history_id,
                logged_at: dose.logged_at.map(Stamp::from),
                reminder_id: dose.reminder_id,
                delivery_warning: warning(m.id),
            };
            (dose.at, today)
        })
        .collect())
}

/// A change to a medication's stock by whoever `caller` is: they must be able to manage it;
/// `change` then runs on the owner's data (given the owner's id), and a carer's change is
/// written into the person's audit list as `stock.changed`.
pub fn change_stock<T>(
    conn: &Connection,
    caller: impl Into<access::Caller>,
    id: MedicationId,
    now: DateTime<Utc>,
    change: impl FnOnce(&Connection, i64) -> ServiceResult<T>,
) -> ServiceResult<T> {
    let access = access::medication(conn, caller, id)?.allow(Role::Manage)?;
    let changed = change(conn, access.owner_id)?;
    audit_change(conn, &access, id, "stock.changed", now)?;
    Ok(changed)
}

/// Writes a carer's change to a medication (its stock, say) into the person's audit list.
pub fn audit_change(
    conn: &Connection,
    access: &Access,
    id: MedicationId,
    action: &str,
    now: DateTime<Utc>,
) -> ServiceResult<()> {
    if access.is_owner() {
        return Ok(());
    }
    let m = medications::find(conn, access.owner_id, id.0)?.ok_or_else(medication_not_found)?;
    access::audit(conn, access, action, &m.name, now)
}

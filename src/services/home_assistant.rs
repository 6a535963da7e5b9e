//! Home Assistant by MQTT discovery (issue 28): who is published, what their entities show,
//! what happened since the last look (the event entity), and a button press recorded as a
//! dose by "Home Assistant". The MQTT side is the edge `home_assistant/`; this module reads
//! and writes only through the store.
//!
//! Only people whose owner turned on "Show in Home Assistant" are published, and archived
//! people are not. With the owner's `hide_medication_names`, medications are "Medication 1",
//! "Medication 2"… (by the order they were added), in entity names and in states alike.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;

use super::access::{Access, Caller, Role};
use super::doses::{self, DoseRequest};
use super::error::{ErrorCode, ServiceResult, not_found};
use super::medications::{self as medication_views, Reach};
use super::planner::{self, UserClock};
use crate::db::Stamp;
use crate::domain::dose::DoseStatus;
use crate::domain::medication::MedicationId;
use crate::domain::stock::StockStatus;
use crate::domain::today::DoseState;
use crate::store::history::{Entry, LoggedBy};
use crate::store::{history, medications, notify_prefs, people, reminders};

/// Who a dose pressed in Home Assistant is logged by, in history and the audit list.
pub const LOGGER_NAME: &str = "Home Assistant";

/// How far ahead "next dose" looks when today has no dose left.
const NEXT_DOSE_DAYS: u32 = 8;

/// Events read per look; more wait for the next.
const EVENTS_PER_LOOK: i64 = 500;

/// A medication as Home Assistant shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownMedication {
    pub id: i64,
    /// Its name, or "Medication N" with `hide_medication_names`.
    pub label: String,
    /// The unit stock is counted in; none without a stock kept.
    pub stock_unit: Option<String>,
}

/// A published person: their device and entities.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    pub person_id: i64,
    pub owner_id: i64,
    pub name: String,
    pub medications: Vec<ShownMedication>,
}

/// The next dose: when, of what, how much.
#[derive(Debug, Clone, PartialEq)]
pub struct NextDose {
    pub at: Stamp,
    pub medication: String,
    /// E.g. "1 tablet".
    pub amount: String,
}

/// A medication's stock as its entities show it (all none without a stock kept).
#[derive(Debug, Clone, PartialEq)]
pub struct StockState {
    pub medication_id: i64,
    pub left: Option<f64>,
    /// Whole days until it runs out at the scheduled use; none when unknown.
    pub days_left: Option<i64>,
    pub low: bool,
}

/// What a published person's entities show now.
#[derive(Debug, Clone, PartialEq)]
pub struct States {
    pub next_dose: Option<NextDose>,
    pub last_taken: Option<Stamp>,
    /// A dose of today is due (its time has come, nothing logged yet).
    pub due_now: bool,
    pub missed_today: u32,
    /// Taken of all logged (taken, skipped, missed) over the last 7 days, in per cent.
    pub adherence_7d: Option<f64>,
    pub stock: Vec<StockState>,
}

/// Everyone published, with their states, by person id.
pub fn snapshot(conn: &Connection, now: DateTime<Utc>) -> ServiceResult<Vec<(Published, States)>> {
    let mut out = Vec::new();
    for person in people::published(conn)? {
        let owner = person.owner_id;
        let hide = notify_prefs::global(conn, owner)?.hide_medication_names;
        let listed = medication_views::list(conn, owner, Some(&[person.id]), reach(), now)?;
        let mut meds = listed.medications;
        meds.sort_by_key(|m| m.id);
        let label_of = |index: usize, name: &str| {
            if hide {
                format!("Medication {}", index + 1)
            } else {
                name.to_owned()
            }
        };
        let shown: Vec<ShownMedication> = meds
            .iter()
            .enumerate()
            .map(|(i, m)| ShownMedication {
                id: m.id,
                label: label_of(i, &m.name),
                stock_unit: m
                    .inventory
                    .as_ref()
                    .filter(|inv| inv.enabled)
                    .map(|inv| inv.total_unit.clone()),
            })
            .collect();
        let labels: HashMap<i64, String> = shown.iter().map(|m| (m.id, m.label.clone())).collect();
        let stock = meds
            .iter()
            .map(|m| {
                let inventory = m.inventory.as_ref().filter(|inv| inv.enabled);
                StockState {
                    medication_id: m.id,
                    left: inventory.map(|inv| inv.current_quantity.to_f64()),
                    days_left: inventory
                        .and_then(|inv| inv.runs_out_on.as_deref())
                        .and_then(|day| chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok())
                        .map(|day| (day - listed.today).num_days().max(0)),
                    low: inventory.is_some_and(|inv| inv.stock_status != StockStatus::InStock),
                }
            })
            .collect();
        let today = medication_views::today(conn, Caller::User(owner), Some(person.id), reach(), now)?;
        let due_now = today.doses.iter().any(|d| d.status == DoseState::Due);
        let missed_today = today
            .doses
            .iter()
            .filter(|d| d.status == DoseState::Missed)
            .count();
        let next_dose = match today
            .doses
            .iter()
            .find(|d| matches!(d.status, DoseState::Due | DoseState::Upcoming))
        {
            Some(d) => Some(NextDose {
                at: d.scheduled_time,
                medication: labels.get(&d.medication_id).cloned().unwrap_or_default(),
                amount: format!("{} {}", d.quantity, d.unit),
            }),
            None => next_after_today(conn, owner, person.id, &labels, now)?,
        };
        let adherence = medication_views::adherence(conn, Caller::User(owner), Some(person.id), now)?;
        let (taken, counted) = adherence.medications.iter().fold((0u32, 0u32), |(t, c), m| {
            (
                t + m.last7.taken,
                c + m.last7.taken + m.last7.skipped + m.last7.missed,
            )
        });
        let states = States {
            next_dose,
            last_taken: history::last_taken(conn, owner, person.id)?,
            due_now,
            missed_today: u32::try_from(missed_today).unwrap_or(u32::MAX),
            adherence_7d: (counted > 0)
                .then(|| (f64::from(taken) * 1000.0 / f64::from(counted)).round() / 10.0),
            stock,
        };
        out.push((
            Published {
                person_id: person.id,
                owner_id: owner,
                name: person.name,
                medications: shown,
            },
            states,
        ));
    }
    Ok(out)
}

fn reach() -> Reach {
    Reach {
        email_available: false,
    }
}

/// The first planned dose after today, over the next days.
fn next_after_today(
    conn: &Connection,
    owner: i64,
    person_id: i64,
    labels: &HashMap<i64, String>,
    now: DateTime<Utc>,
) -> ServiceResult<Option<NextDose>> {
    let clock = UserClock::at(conn, owner, now)?;
    let tomorrow = clock.today() + Duration::days(1);
    let after = clock.start_of(tomorrow) - Duration::seconds(1);
    let mut best: Option<(DateTime<Utc>, NextDose)> = None;
    for m in medications::list(conn, owner)?
        .into_iter()
        .filter(|m| m.person_id == person_id)
    {
        let Some(&at) = planner::doses_of(&m, &clock, tomorrow, NEXT_DOSE_DAYS, after).first() else {
            continue;
        };
        if best.as_ref().is_some_and(|(b, _)| *b <= at) {
            continue;
        }
        let quantity = planner::quantity_at(&m, &clock, at);
        best = Some((
            at,
            NextDose {
                at: Stamp::from(at),
                medication: labels.get(&m.id).cloned().unwrap_or_default(),
                amount: format!("{quantity} {}", m.unit),
            },
        ));
    }
    Ok(best.map(|(_, next)| next))
}

/// What the event entity tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Taken,
    Skipped,
    Missed,
    Reminder,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Taken => "taken",
            EventKind::Skipped => "skipped",
            EventKind::Missed => "missed",
            EventKind::Reminder => "reminder",
        }
    }
}

/// Something that happened to a published person's medication.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub person_id: i64,
    pub kind: EventKind,
    pub medication_id: i64,
    /// The medication's label (hidden names stay hidden).
    pub medication: String,
    /// The dose's time (a reminder's planned time).
    pub at: Stamp,
}

/// Where the last look at events stopped.
#[derive(Debug, Clone)]
pub struct Marks {
    /// The newest history entry told.
    history: i64,
    /// Reminders whose time came by then were told.
    reminders: Stamp,
}

/// Marks at what exists now: only what happens later is told.
pub fn marks_now(conn: &Connection, now: DateTime<Utc>) -> ServiceResult<Marks> {
    Ok(Marks {
        history: history::newest_id(conn)?,
        reminders: Stamp::from(now),
    })
}

/// The events of published medications since `marks`, which move on past everything read:
/// each dose logged (taken, skipped, or recorded missed), and each reminder whose time came
/// by `now` while its dose is open (whether or not a channel took it: for a household that
/// reminds through Home Assistant, this is the reminder).
pub fn events_since(
    conn: &Connection,
    marks: &mut Marks,
    published: &[Published],
    now: DateTime<Utc>,
) -> ServiceResult<Vec<Event>> {
    let shown: HashMap<i64, (i64, &str)> = published
        .iter()
        .flat_map(|p| {
            p.medications
                .iter()
                .map(move |m| (m.id, (p.person_id, m.label.as_str())))
        })
        .collect();
    let mut events = Vec::new();
    for entry in history::written_after(conn, marks.history, EVENTS_PER_LOOK)? {
        marks.history = marks.history.max(entry.id);
        let Some((person_id, label)) = entry.medication_id.and_then(|id| shown.get(&id).copied()) else {
            continue;
        };
        let kind = match entry.status {
            DoseStatus::Taken => EventKind::Taken,
            DoseStatus::Skipped => EventKind::Skipped,
            DoseStatus::Missed => EventKind::Missed,
        };
        events.push(Event {
            person_id,
            kind,
            medication_id: entry.medication_id.unwrap_or_default(),
            medication: label.to_owned(),
            at: entry.taken,
        });
    }
    let now = Stamp::from(now);
    if now > marks.reminders {
        let due = reminders::came_due(conn, marks.reminders, now, EVENTS_PER_LOOK)?;
        // A full page is told up to its last one; the rest comes at the next look.
        let full = due.len() >= usize::try_from(EVENTS_PER_LOOK).unwrap_or(usize::MAX);
        marks.reminders = match due.last() {
            Some(last) if full => last.due_at,
            _ => now,
        };
        for reminder in due {
            let Some(&(person_id, label)) = shown.get(&reminder.medication_id) else {
                continue;
            };
            events.push(Event {
                person_id,
                kind: EventKind::Reminder,
                medication_id: reminder.medication_id,
                medication: label.to_owned(),
                at: reminder.scheduled_time,
            });
        }
    }
    Ok(events)
}

/// A button of a medication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Take,
    Skip,
}

/// Records the due dose of a published medication (else its next one today, else a dose
/// now) as taken or skipped, logged by "Home Assistant" in history and in the person's audit
/// list. An unknown medication, or one of a person not published, answers 404
/// `medication_not_found`; the as-needed limits refuse as in the app.
pub fn press(
    conn: &Connection,
    medication_id: i64,
    button: Button,
    now: DateTime<Utc>,
) -> ServiceResult<Entry> {
    let unknown = || not_found(ErrorCode::MedicationNotFound, "Medication not found");
    let owner = medications::owner(conn, medication_id)?.ok_or_else(unknown)?;
    let m = medications::find(conn, owner, medication_id)?.ok_or_else(unknown)?;
    let person = people::find(conn, m.person_id)?.ok_or_else(unknown)?;
    if !person.home_assistant || person.archived {
        return Err(unknown());
    }
    let today = medication_views::today(conn, Caller::User(owner), Some(person.id), reach(), now)?;
    let mine = || today.doses.iter().filter(|d| d.medication_id == medication_id);
    let dose = mine()
        .find(|d| d.status == DoseState::Due)
        .or_else(|| mine().find(|d| d.status == DoseState::Upcoming));
    let access = Access {
        user_id: owner,
        owner_id: owner,
        person_id: person.id,
        role: Role::Owner,
    };
    let status = match button {
        Button::Take => DoseStatus::Taken,
        Button::Skip => DoseStatus::Skipped,
    };
    let request = DoseRequest {
        status,
        taken: None,
        quantity: None,
        dosage_unit: None,
        dosage: None,
        dosage_id: dose.and_then(|d| d.reminder_id),
        scheduled_time: dose
            .filter(|d| d.reminder_id.is_none())
            .map(|d| d.scheduled_time.instant()),
        affect_inventory: true,
        confirm: false,
    };
    let logged_by = LoggedBy {
        user_id: None,
        name: LOGGER_NAME.to_owned(),
    };
    let logged = doses::log_as(
        conn,
        &access,
        MedicationId(medication_id),
        request,
        logged_by,
        now,
    )?;
    // As the app writes a dose taken or skipped by a carer.
    people::audit_without_account(
        conn,
        person.id,
        LOGGER_NAME,
        "dose.logged",
        &m.name,
        Stamp::from(now),
    )?;
    Ok(logged.entry)
}

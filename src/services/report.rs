//! The doctor report: what a person takes, how well they kept to it over a period, the
//! doses they missed, and their stock. The web app lays it out for print.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::{ServiceResult, invalid};
use crate::clock;
use crate::db::Stamp;
use crate::domain::limits::Refusal;
use crate::domain::quantity::Quantity;
use crate::domain::schedule::{self, DatedStep, Frequency};
use crate::domain::stock::{self, StockStatus};
use crate::services::medications::ScheduleView;
use crate::services::planner::UserClock;
use crate::services::prescriptions::{self, PrescriptionView};
use crate::store::history;
use crate::store::medications::{self, Inventory, Medication};
use crate::store::prescriptions as prescription_store;

/// The longest period one report covers.
const MAX_DAYS: i64 = 3660;
const DEFAULT_DAYS: i64 = 30;
/// Missed doses listed at most (the counts stay exact).
const MAX_MISSED: i64 = 500;

#[derive(Debug, Default, Clone, Copy, Serialize, ToSchema)]
pub struct Adherence {
    pub taken: u32,
    pub skipped: u32,
    pub missed: u32,
    /// taken / (taken + skipped + missed), rounded to 0.001; null with nothing logged.
    pub rate: Option<f64>,
}

impl Adherence {
    pub fn add(&mut self, status: &str) {
        self.add_many(status, 1);
    }

    /// Counts `n` entries of one status.
    pub fn add_many(&mut self, status: &str, n: u32) {
        match status {
            "taken" => self.taken += n,
            "skipped" => self.skipped += n,
            _ => self.missed += n,
        }
        let total = f64::from(self.taken + self.skipped + self.missed);
        self.rate = Some((f64::from(self.taken) / total * 1000.0).round() / 1000.0);
    }
}

/// An as-needed medication's use over the report's period, in place of adherence.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct Usage {
    /// Doses taken in the period.
    pub taken: u32,
    /// Days of the period counted (those up to today).
    pub days: u32,
    /// taken / days, rounded to 0.01.
    pub per_day: f64,
}

/// The as-needed limit a dose broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// Taken sooner after the dose before than `min_gap_minutes`.
    MinGap,
    /// One more than `max_per_day` within 24 hours.
    MaxPerDay,
}

/// A dose taken over an as-needed limit ("Take anyway"), judged against the doses before it.
#[derive(Debug, Serialize, ToSchema)]
pub struct OverLimitDose {
    #[schema(value_type = String)]
    pub time: Stamp,
    pub limit: Limit,
}

/// The times and weekdays a medication is due, defaults filled in.
pub struct ScheduleSummary {
    pub effective_times: Vec<String>,
    pub effective_weekdays: Vec<u32>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StockSummary {
    #[schema(value_type = f64)]
    pub current_quantity: Quantity,
    pub total_unit: String,
    /// `out_of_stock`, `low` or `in_stock`.
    #[schema(value_type = String)]
    pub stock_status: StockStatus,
    pub runs_out_on: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MedicationLine {
    pub id: i64,
    pub name: String,
    pub unit: String,
    pub frequency: String,
    #[schema(value_type = f64)]
    pub default_quantity: Quantity,
    pub color: String,
    /// The whole schedule, as the medication shows it.
    pub schedule: ScheduleView,
    /// A tapering plan's steps with their dates (empty without one).
    pub stages: Vec<DatedStep>,
    /// `YYYY-MM-DD`, the last day with doses (end date or last stage); null: no end.
    #[schema(required = true)]
    pub last_day: Option<String>,
    pub inventory: Option<StockSummary>,
    /// Null for an as-needed medication: it has no doses to keep to (see `usage`).
    #[schema(required = true)]
    pub adherence: Option<Adherence>,
    /// An as-needed medication's use; null for a scheduled one.
    #[schema(required = true)]
    pub usage: Option<Usage>,
    /// An as-needed medication's doses in the period taken over a limit, oldest first.
    pub over_limit: Vec<OverLimitDose>,
    /// Its prescription (prescriber, pharmacy, expiry, refills) and what needs ordering.
    #[schema(required = true)]
    pub prescription: Option<PrescriptionView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MissedDose {
    pub medication_name: String,
    #[schema(value_type = String)]
    pub time: Stamp,
    /// "logged" (entered as missed) or "unanswered" (a reminder nobody answered).
    pub source: &'static str,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Report {
    pub from: String,
    pub to: String,
    #[schema(value_type = String)]
    pub generated_at: Stamp,
    pub timezone: String,
    /// Every scheduled medication's doses (deleted ones' too); as-needed ones are not counted.
    pub totals: Adherence,
    pub medications: Vec<MedicationLine>,
    pub missed: Vec<MissedDose>,
}

pub fn schedule_summary(m: &Medication, clock: &UserClock) -> ScheduleSummary {
    let frequency = Frequency::parse(&m.frequency).unwrap_or(Frequency::Daily);
    let times = schedule::parse_times(&m.schedule_times).unwrap_or_default();
    let effective_times = schedule::day_times(frequency, &times, clock.default_time, m.rules.interval_hours)
        .into_iter()
        .map(schedule::format_time)
        .collect();
    let effective_weekdays = match frequency {
        Frequency::Weekly => {
            let parsed = schedule::parse_weekdays(&m.schedule_weekdays).unwrap_or_default();
            schedule::effective_weekdays(&parsed, m.start_date)
                .iter()
                .map(|d| d.number_from_monday())
                .collect()
        }
        _ => m.schedule_weekdays.clone(),
    };
    ScheduleSummary {
        effective_times,
        effective_weekdays,
    }
}

/// When the stock runs out at the scheduled use (`None` for as-needed or unknown usage).
pub fn runs_out_on(m: &Medication, inv: &Inventory, clock: &UserClock) -> Option<NaiveDate> {
    if !inv.enabled {
        return None;
    }
    let frequency = Frequency::parse(&m.frequency)?;
    let times = schedule::parse_times(&m.schedule_times).unwrap_or_default();
    let times_per_day = match m.rules.interval_hours {
        Some(hours) => 24.0 / f64::from(hours.max(1)),
        None => schedule::effective_times(frequency, &times, clock.default_time).len() as f64,
    };
    let mut per_day = schedule::doses_per_day(frequency, 1, m.schedule_weekdays.len())? * times_per_day;
    if let Some(n) = m.rules.every_days {
        per_day /= f64::from(n.max(1));
    }
    if let (Some(on), Some(off)) = (m.rules.cycle_on_days, m.rules.cycle_off_days) {
        per_day *= f64::from(on) / f64::from((on + off).max(1));
    }
    // Today's dose under a tapering plan (by date: the forecast changes once a day).
    let dose = m
        .rules
        .step_on((clock.today() - m.start_date).num_days())
        .unwrap_or(m.default_quantity);
    let per_dose = inv.containers.usage(dose, &m.unit, &m.unit).ok()?;
    let out = stock::runs_out_on(inv.current_quantity, per_dose.to_f64() * per_day, clock.today())?;
    // A course that ends first never runs out.
    match m.rules.last_day(m.start_date) {
        Some(end) if out > end && inv.current_quantity > crate::domain::quantity::Quantity::ZERO => None,
        _ => Some(out),
    }
}

/// `taken` doses over `days` days.
fn usage(taken: u32, days: i64) -> Usage {
    let days = u32::try_from(days).unwrap_or(u32::MAX).max(1);
    Usage {
        taken,
        days,
        per_day: (f64::from(taken) / f64::from(days) * 100.0).round() / 100.0,
    }
}

fn date(text: Option<&str>, label: &str) -> ServiceResult<Option<NaiveDate>> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => NaiveDate::parse_from_str(t, "%Y-%m-%d")
            .map(Some)
            .map_err(|_| invalid(format!("The report's {label} date must be written as YYYY-MM-DD"))),
    }
}

/// The report for local dates `from` to `to` (inclusive); by default the last 30 days.
pub fn build(
    conn: &Connection,
    user_id: i64,
    from: Option<&str>,
    to: Option<&str>,
    now: DateTime<Utc>,
) -> ServiceResult<Report> {
    let tx = conn.unchecked_transaction()?;
    let clock = UserClock::at(&tx, user_id, now)?;
    let to = date(to, "end")?.unwrap_or_else(|| clock.today());
    let from = date(from, "start")?.unwrap_or(to - Duration::days(DEFAULT_DAYS - 1));
    if from > to {
        return Err(invalid("The report's start must not be after its end"));
    }
    if (to - from).num_days() >= MAX_DAYS {
        return Err(invalid("A report covers at most 10 years"));
    }
    let start = clock::stamp(clock.start_of(from));
    let end = clock::stamp(clock.start_of(to + Duration::days(1)));

    let listed = medications::list(&tx, user_id)?;
    let as_needed: HashSet<i64> = listed
        .iter()
        .filter(|m| Frequency::parse(&m.frequency) == Some(Frequency::AsNeeded))
        .map(|m| m.id)
        .collect();

    let mut per_medication: HashMap<i64, Adherence> = HashMap::new();
    let mut totals = Adherence::default();
    for count in history::status_counts_between(&tx, user_id, &start, &end)? {
        // Taken as needed, a dose is not one kept to or missed.
        if count.medication_id.is_none_or(|id| !as_needed.contains(&id)) {
            totals.add_many(&count.status, count.count);
        }
        if let Some(id) = count.medication_id {
            per_medication
                .entry(id)
                .or_default()
                .add_many(&count.status, count.count);
        }
    }

    // Each as-needed dose is judged against the ones before it, so the doses a gap or a
    // day's maximum reaches back to are read too.
    let taken_as_needed = if as_needed.is_empty() {
        HashMap::new()
    } else {
        let reach = clock::stamp(clock.start_of(from - Duration::days(2)));
        history::taken_by_medication(&tx, user_id, &reach, &end)?
    };
    let period_start = clock.start_of(from);
    // The period's days so far: a period that ends in the future has not been lived yet.
    let days = ((to.min(clock.today()) - from).num_days() + 1).max(1);

    let mut medications = Vec::new();
    let inventories = medications::inventories(&tx, user_id)?;
    let prescribed = prescription_store::of_user(&tx, user_id)?;
    for m in listed {
        // Once per medication: the stock's line and the prescription's refill both use it.
        let out = inventories
            .get(&m.id)
            .and_then(|inv| runs_out_on(&m, inv, &clock));
        let prescription = prescribed
            .get(&m.id)
            .map(|p| prescriptions::view(p, out, clock.today()));
        let inventory = inventories
            .get(&m.id)
            .filter(|inv| inv.enabled)
            .map(|inv| StockSummary {
                current_quantity: inv.current_quantity.max(Quantity::ZERO),
                total_unit: inv.containers.stock_unit().to_owned(),
                stock_status: stock::status(inv.current_quantity, inv.reminder_threshold),
                runs_out_on: out.map(|d| d.to_string()),
            });
        let adherence = per_medication.get(&m.id).copied().unwrap_or_default();
        let (adherence, usage, over_limit) = if as_needed.contains(&m.id) {
            let mut taken = taken_as_needed.get(&m.id).cloned().unwrap_or_default();
            taken.sort();
            let over_limit = m
                .rules
                .over_limits(&taken)
                .into_iter()
                .filter(|(at, _)| *at >= period_start)
                .map(|(at, refusal)| OverLimitDose {
                    time: Stamp::from(at),
                    limit: match refusal {
                        Refusal::TooSoon { .. } => Limit::MinGap,
                        Refusal::DailyMaximum { .. } => Limit::MaxPerDay,
                    },
                })
                .collect();
            (None, Some(usage(adherence.taken, days)), over_limit)
        } else {
            (Some(adherence), None, Vec::new())
        };
        medications.push(MedicationLine {
            id: m.id,
            schedule: ScheduleView::of(&m, &clock),
            stages: m.rules.dated_steps(m.start_date),
            last_day: m.rules.last_day(m.start_date).map(|d| d.to_string()),
            adherence,
            usage,
            over_limit,
            inventory,
            prescription,
            name: m.name,
            unit: m.unit,
            frequency: m.frequency,
            default_quantity: m.default_quantity,
            color: m.color,
        });
    }

    let missed = history::missed_between(&tx, user_id, &start, &end, Stamp::from(now), MAX_MISSED)?
        .into_iter()
        .map(|dose| MissedDose {
            medication_name: dose.medication_name,
            time: dose.time,
            source: if dose.logged { "logged" } else { "unanswered" },
        })
        .collect();

    Ok(Report {
        from: from.to_string(),
        to: to.to_string(),
        generated_at: Stamp::from(now),
        timezone: clock.tz.name().to_owned(),
        totals,
        medications,
        missed,
    })
}

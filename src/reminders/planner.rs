//! Materialises a medication's reminders for the coming days (DESIGN §4): future unsent
//! reminders are replaced whenever the medication or the user's zone changes; the unique
//! key on (medication, scheduled time) makes duplicates impossible.

use chrono::{Duration, NaiveDate, NaiveTime, Utc};
use chrono_tz::Tz;
use rusqlite::Connection;

use crate::clock;
use crate::domain::planner::{self, Plan};
use crate::domain::schedule::{self, Frequency};
use crate::store::medications::Medication;
use crate::store::reminders;

/// How many days ahead reminders are planned (the spec's default `days_ahead`).
pub const HORIZON_DAYS: u32 = 7;
/// Minutes a reminder comes before the dose (the spec's default lead).
pub const DEFAULT_LEAD_MINUTES: i64 = 15;

/// Plans `days` days of reminders for a medication, starting today in `tz`. Returns how
/// many new reminders were added.
pub fn plan_medication(
    conn: &Connection,
    user_id: i64,
    medication: &Medication,
    tz: Tz,
    default_time: NaiveTime,
    days: u32,
) -> rusqlite::Result<usize> {
    let now = Utc::now();
    let frequency = Frequency::parse(&medication.frequency).unwrap_or(Frequency::AsNeeded);
    let times = schedule::parse_times(&medication.schedule_times).unwrap_or_default();
    let weekdays = schedule::parse_weekdays(&medication.schedule_weekdays).unwrap_or_default();
    let today = now.with_timezone(&tz).date_naive();
    let plan = Plan {
        frequency,
        times: &times,
        weekdays: &weekdays,
        start_date: NaiveDate::parse_from_str(&medication.start_date, "%Y-%m-%d").unwrap_or(today),
        default_time,
        tz,
    };
    let planned: Vec<(String, String)> = planner::occurrences(&plan, today, days, now)
        .into_iter()
        .map(|due| {
            (
                clock::stamp(due),
                clock::stamp(due - Duration::minutes(DEFAULT_LEAD_MINUTES)),
            )
        })
        .collect();
    reminders::replace_future(conn, user_id, medication.id, &planned, &clock::stamp(now))
}

//! Materialises a medication's reminders for the coming days (DESIGN §4): future unsent
//! reminders are replaced whenever the medication, the user's zone or their reminder
//! preferences change, and topped up daily; the unique key on (medication, scheduled time)
//! makes duplicates impossible.

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use chrono_tz::Tz;
use rusqlite::Connection;

use crate::clock;
use crate::domain::planner::{self, Plan};
use crate::domain::schedule::{self, Frequency};
use crate::store::medications::{self, Medication};
use crate::store::{notify_prefs, reminders, settings};

/// The user's time zone and default reminder time, which schedules and dates depend on,
/// at one instant: the `now` that "today" and plans start from.
pub struct UserClock {
    pub tz: Tz,
    pub default_time: NaiveTime,
    pub now: DateTime<Utc>,
}

impl UserClock {
    /// The user's clock at `now` (the server's `Clock::now()`).
    pub fn at(conn: &Connection, user_id: i64, now: DateTime<Utc>) -> rusqlite::Result<UserClock> {
        let s = settings::get(conn, user_id)?;
        Ok(UserClock::from_settings(
            &s.timezone,
            &s.default_reminder_time,
            now,
        ))
    }

    /// From the stored settings' texts; what does not parse falls back to UTC and 09:00.
    fn from_settings(timezone: &str, default_time: &str, now: DateTime<Utc>) -> UserClock {
        UserClock {
            tz: timezone.parse().unwrap_or(Tz::UTC),
            default_time: NaiveTime::parse_from_str(default_time, "%H:%M")
                .unwrap_or(NaiveTime::from_hms_opt(9, 0, 0).unwrap_or_default()),
            now,
        }
    }

    pub fn today(&self) -> NaiveDate {
        self.now.with_timezone(&self.tz).date_naive()
    }

    /// The UTC instant a local date starts at (the first valid instant on DST days).
    pub fn start_of(&self, date: NaiveDate) -> DateTime<Utc> {
        let midnight = date.and_hms_opt(0, 0, 0).unwrap_or_default();
        (0..4)
            .find_map(|hour| {
                use chrono::TimeZone;
                self.tz
                    .from_local_datetime(&(midnight + chrono::Duration::hours(hour)))
                    .earliest()
            })
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|| midnight.and_utc())
    }
}

/// Plans `days` days of reminders for a medication, starting today in the user's zone,
/// with the lead its notification preferences give. With reminders switched off, its
/// unsent reminders are removed instead. Returns how many new reminders were added.
pub fn plan_medication(
    conn: &Connection,
    user_id: i64,
    medication: &Medication,
    clock: &UserClock,
    days: u32,
) -> rusqlite::Result<usize> {
    let global = notify_prefs::global(conn, user_id)?;
    if !global.reminders_enabled {
        reminders::drop_unsent_for_medication(conn, medication.id)?;
        return Ok(0);
    }
    let own = notify_prefs::for_medication(conn, medication.id)?;
    let lead = notify_prefs::effective(&global, own.as_ref()).lead_minutes;
    let now = clock::stamp(clock.now);
    let existing = reminders::replannable_for_medication(conn, medication.id, &now)?;
    let mut writer = reminders::PlanWriter::new(conn)?;
    plan_with(
        &mut writer,
        user_id,
        medication,
        clock,
        lead,
        existing,
        days,
        &now,
    )
}

/// Writes the difference between a medication's plan and its `existing` replannable
/// reminders.
#[allow(clippy::too_many_arguments)]
fn plan_with(
    writer: &mut reminders::PlanWriter<'_>,
    user_id: i64,
    medication: &Medication,
    user_clock: &UserClock,
    lead: i64,
    existing: Vec<reminders::Replannable>,
    days: u32,
    now_stamp: &str,
) -> rusqlite::Result<usize> {
    let now = user_clock.now;
    let today = now.with_timezone(&user_clock.tz).date_naive();
    let planned: Vec<(String, String)> = doses_of(medication, user_clock, today, days, now)
        .into_iter()
        // A lead longer than the time left (a new medication, a longer lead) reminds now,
        // not in the past where the dispatcher would count it as missed.
        .map(|due| {
            (
                clock::stamp(due),
                clock::stamp((due - Duration::minutes(lead)).max(now)),
            )
        })
        .collect();
    writer.apply(
        user_id,
        medication.id,
        &medication.name,
        &planned,
        existing,
        now_stamp,
    )
}

/// A medication's dose instants after `after`, over `days` local days from `first_day`, in
/// the user's zone: what reminders are planned for, and what Today lists.
pub fn doses_of(
    medication: &Medication,
    user_clock: &UserClock,
    first_day: NaiveDate,
    days: u32,
    after: DateTime<Utc>,
) -> Vec<DateTime<Utc>> {
    let frequency = Frequency::parse(&medication.frequency).unwrap_or(Frequency::AsNeeded);
    let times = schedule::parse_times(&medication.schedule_times).unwrap_or_default();
    let weekdays = schedule::parse_weekdays(&medication.schedule_weekdays).unwrap_or_default();
    let today = user_clock.today();
    let plan = Plan {
        frequency,
        times: &times,
        weekdays: &weekdays,
        start_date: NaiveDate::parse_from_str(&medication.start_date, "%Y-%m-%d").unwrap_or(today),
        default_time: user_clock.default_time,
        tz: user_clock.tz,
    };
    planner::occurrences(&plan, first_day, days, after)
}

/// Re-plans every medication of one user from `now`.
pub fn plan_user_at(
    conn: &Connection,
    user_id: i64,
    days: u32,
    now: DateTime<Utc>,
) -> rusqlite::Result<usize> {
    plan_users(conn, user_id, user_id, days, now)
}

/// Re-plans every medication of the users with ids from `first` to `last` from `now`,
/// reading what planning needs for all of them in a few queries (the daily top-up plans
/// thousands of users in large chunks). Returns how many new reminders were added.
pub fn plan_users(
    conn: &Connection,
    first: i64,
    last: i64,
    days: u32,
    now: DateTime<Utc>,
) -> rusqlite::Result<usize> {
    let now_stamp = clock::stamp(now);
    let globals = notify_prefs::globals_for_users(conn, first, last)?;
    for (user_id, global) in &globals {
        if !global.reminders_enabled {
            reminders::drop_unsent_for_user(conn, *user_id)?;
        }
    }
    let clocks = settings::clocks_for_users(conn, first, last)?;
    let own_prefs = notify_prefs::for_medications_of_users(conn, first, last)?;
    let mut existing = reminders::replannable_for_users(conn, first, last, &now_stamp)?;
    let defaults = notify_prefs::GlobalPrefs::default();
    let unset = settings::UserSettings::default();
    let mut writer = reminders::PlanWriter::new(conn)?;
    let mut added = 0;
    let mut user_clock: Option<(i64, UserClock)> = None;
    for (user_id, medication) in medications::for_users(conn, first, last)? {
        let global = globals.get(&user_id).unwrap_or(&defaults);
        if !global.reminders_enabled {
            continue;
        }
        let clock = match &user_clock {
            Some((id, clock)) if *id == user_id => clock,
            _ => {
                let clock = clocks.get(&user_id).map_or_else(
                    || UserClock::from_settings(&unset.timezone, &unset.default_reminder_time, now),
                    |(zone, time)| UserClock::from_settings(zone, time, now),
                );
                &user_clock.insert((user_id, clock)).1
            }
        };
        let lead = notify_prefs::effective(global, own_prefs.get(&medication.id)).lead_minutes;
        let mine = existing.remove(&medication.id).unwrap_or_default();
        added += plan_with(
            &mut writer,
            user_id,
            &medication,
            clock,
            lead,
            mine,
            days,
            &now_stamp,
        )?;
    }
    Ok(added)
}

/// The users who have medications, for the daily top-up.
pub fn users_with_medications(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    conn.prepare("SELECT DISTINCT user_id FROM medications ORDER BY user_id")?
        .query_map([], |row| row.get(0))?
        .collect()
}

//! Materialises a medication's reminders for the coming days (DESIGN §4): future unsent
//! reminders are replaced whenever the medication, the user's zone or their reminder
//! preferences change, and topped up daily; the unique key on (medication, scheduled time)
//! makes duplicates impossible.

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use chrono_tz::Tz;
use rusqlite::Connection;

use crate::clock;
use crate::db::Stamp;
use crate::domain::planner::{self, Plan};
use crate::domain::quantity::Quantity;
use crate::domain::schedule::{self, Frequency};
use crate::store::medications::{self, Medication};
use crate::store::{notify_prefs, people, reminders, settings};

/// The user's time zone and default reminder time, which schedules and dates depend on,
/// at one instant: the `now` that "today" and plans start from.
pub struct UserClock {
    pub tz: Tz,
    pub default_time: NaiveTime,
    pub now: DateTime<Utc>,
}

/// Owners' clocks at one instant, for a pass over rows that come grouped by owner: each
/// owner's settings are read once, when their first row comes.
pub struct OwnerClocks {
    now: DateTime<Utc>,
    last: Option<(i64, UserClock)>,
}

impl OwnerClocks {
    pub fn at(now: DateTime<Utc>) -> OwnerClocks {
        OwnerClocks { now, last: None }
    }

    /// `user_id`'s clock.
    pub fn of(&mut self, conn: &Connection, user_id: i64) -> rusqlite::Result<&UserClock> {
        if self.last.as_ref().is_none_or(|(owner, _)| *owner != user_id) {
            self.last = Some((user_id, UserClock::at(conn, user_id, self.now)?));
        }
        Ok(&self.last.as_ref().expect("set above").1)
    }
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
/// with the lead its notification preferences give. With reminders switched off, or for an
/// archived person's medication, its unsent reminders are removed instead. Returns how many
/// new reminders were added.
pub fn plan_medication(
    conn: &Connection,
    user_id: i64,
    medication: &Medication,
    clock: &UserClock,
    days: u32,
) -> rusqlite::Result<usize> {
    let global = notify_prefs::global(conn, user_id)?;
    if !global.reminders_enabled || people::find(conn, medication.person_id)?.is_some_and(|p| p.archived) {
        reminders::drop_unsent_for_medication(conn, medication.id)?;
        return Ok(0);
    }
    let own = notify_prefs::for_medication(conn, medication.id)?;
    let lead = notify_prefs::effective(&global, own.as_ref()).lead_minutes;
    let now = clock::stamp(clock.now);
    let existing = reminders::replannable_for_medication(conn, medication.id, Stamp::from(clock.now))?;
    let mut writer = reminders::PlanWriter::new(conn, &now)?;
    plan_with(&mut writer, user_id, medication, clock, lead, existing, days)?;
    writer.finish()
}

/// Writes (or stages) the difference between a medication's plan and its `existing`
/// replannable reminders.
fn plan_with(
    writer: &mut reminders::PlanWriter<'_>,
    user_id: i64,
    medication: &Medication,
    user_clock: &UserClock,
    lead: i64,
    existing: Vec<reminders::Replannable>,
    days: u32,
) -> rusqlite::Result<()> {
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
    writer.apply(user_id, medication.id, &medication.name, &planned, existing)
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
    with_plan(medication, user_clock, |plan| {
        planner::occurrences(plan, first_day, days, after)
    })
}

/// Runs `f` with the medication's schedule as the planner reads it.
fn with_plan<T>(medication: &Medication, user_clock: &UserClock, f: impl FnOnce(&Plan) -> T) -> T {
    let frequency = Frequency::parse(&medication.frequency).unwrap_or(Frequency::AsNeeded);
    let times = schedule::parse_times(&medication.schedule_times).unwrap_or_default();
    let weekdays = schedule::parse_weekdays(&medication.schedule_weekdays).unwrap_or_default();
    let plan = Plan {
        frequency,
        times: &times,
        weekdays: &weekdays,
        start_date: medication.start_date,
        default_time: user_clock.default_time,
        tz: user_clock.tz,
        rules: &medication.rules,
    };
    f(&plan)
}

/// The first dose on the medication's start date, in the person's zone now.
pub fn first_dose(medication: &Medication, user_clock: &UserClock) -> Option<DateTime<Utc>> {
    with_plan(medication, user_clock, |plan| plan.first_dose())
}

/// `quantity_at` for a caller without the person's clock: it is read only when a tapering
/// plan needs it (most medications have none).
pub fn dose_quantity(
    conn: &Connection,
    user_id: i64,
    medication: &Medication,
    instant: DateTime<Utc>,
    now: DateTime<Utc>,
) -> rusqlite::Result<Quantity> {
    if medication.rules.steps.is_empty() {
        return Ok(medication.default_quantity);
    }
    Ok(quantity_at(
        medication,
        &UserClock::at(conn, user_id, now)?,
        instant,
    ))
}

/// The quantity of the dose at `instant` under the medication's tapering plan, if it has
/// one; else its usual dose.
pub fn quantity_at(medication: &Medication, user_clock: &UserClock, instant: DateTime<Utc>) -> Quantity {
    with_plan(medication, user_clock, |plan| {
        planner::step_quantity(plan, instant)
    })
    .unwrap_or(medication.default_quantity)
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
    let mut existing = reminders::replannable_for_users(conn, first, last, Stamp::from(now))?;
    // Archived people get no reminders: what was planned for them goes.
    let archived = people::archived_medications(conn, first, last)?;
    for id in &archived {
        reminders::drop_unsent_for_medication(conn, *id)?;
    }
    let defaults = notify_prefs::GlobalPrefs::default();
    let unset = settings::UserSettings::default();
    let mut writer = reminders::PlanWriter::new(conn, &now_stamp)?;
    let mut user_clock: Option<(i64, UserClock)> = None;
    for (user_id, medication) in medications::for_users(conn, first, last)? {
        let global = globals.get(&user_id).unwrap_or(&defaults);
        if !global.reminders_enabled || archived.contains(&medication.id) {
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
        plan_with(&mut writer, user_id, &medication, clock, lead, mine, days)?;
    }
    writer.finish()
}

/// The users who have medications, for the daily top-up.
pub fn users_with_medications(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    medications::owners(conn)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    /// A migrated database with three people: in Berlin with two medications (one with its
    /// own lead), in Tokyo with a longer lead, and one who turned reminders off.
    fn people() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = crate::db::open_connection(&dir.path().join("db"), true).unwrap();
        crate::db::migrations::migrate(&mut conn, dir.path()).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at, updated_at)
                 VALUES (1, 'a@x.org', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'), (2, 'b@x.org', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'), (3, 'c@x.org', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
             INSERT INTO user_settings (user_id, timezone, default_reminder_time)
                 VALUES (1, 'Europe/Berlin', '08:30'), (2, 'Asia/Tokyo', '09:00');
             INSERT INTO notification_preferences (user_id, lead_minutes) VALUES (2, 30);
             INSERT INTO notification_preferences (user_id, reminders_enabled) VALUES (3, 0);
             INSERT INTO medications (id, user_id, name, unit, frequency, color, icon, default_quantity,
                                      schedule_times, schedule_weekdays, start_date, created_at, updated_at) VALUES
                 (1, 1, 'Beta', 'mg', 'daily', 'blue', 'pill', 1, '[\"02:30\",\"21:00\"]', '[]', '2026-01-01', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
                 (2, 1, 'alpha', 'mg', 'weekly', 'blue', 'pill', 1, '[]', '[7]', '2026-01-01', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
                 (3, 2, 'Gamma', 'mg', 'twice_daily', 'blue', 'pill', 1, '[]', '[]', '2026-01-01', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
                 (4, 3, 'Delta', 'mg', 'daily', 'blue', 'pill', 1, '[]', '[]', '2026-01-01', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
             INSERT INTO medication_notification_preferences (medication_id, lead_minutes) VALUES (1, 5);",
        )
        .unwrap();
        (dir, conn)
    }

    type Row = (i64, i64, i64, String, String, String);

    fn planned(conn: &Connection) -> Vec<Row> {
        conn.prepare(
            "SELECT id, user_id, medication_id, medication_name, scheduled_time, reminder_time FROM reminders
             ORDER BY medication_id, scheduled_time",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    }

    #[test]
    fn a_chunk_is_planned_as_each_person_alone_and_a_second_pass_writes_nothing() {
        // Friday before Berlin's spring forward (02:30 does not exist on Sunday).
        let now = Utc.with_ymd_and_hms(2026, 3, 27, 12, 0, 0).unwrap();
        let (_one, one_by_one) = people();
        for user in 1..=3 {
            plan_user_at(&one_by_one, user, 7, now).unwrap();
        }
        let (_all, together) = people();
        let added = plan_users(&together, 1, 3, 7, now).unwrap();
        let rows = planned(&together);
        assert_eq!(added, rows.len());
        let alone = planned(&one_by_one);
        assert_eq!(
            rows.iter()
                .map(|r| (r.1, r.2, &r.3, &r.4, &r.5))
                .collect::<Vec<_>>(),
            alone
                .iter()
                .map(|r| (r.1, r.2, &r.3, &r.4, &r.5))
                .collect::<Vec<_>>()
        );
        assert!(rows.iter().all(|r| r.1 != 3), "reminders off: nothing planned");
        // Berlin's 02:30 on the 29th moved to 03:00 CEST (01:00 UTC), five minutes early.
        assert!(
            rows.iter()
                .any(|r| r.4 == "2026-03-29T01:00:00.000Z" && r.5 == "2026-03-29T00:55:00.000Z")
        );
        // Tokyo, twice daily: 09:00 local is midnight UTC, 30 minutes early.
        assert!(
            rows.iter()
                .any(|r| r.4 == "2026-03-28T00:00:00.000Z" && r.5 == "2026-03-27T23:30:00.000Z")
        );

        assert_eq!(plan_users(&together, 1, 3, 7, now).unwrap(), 0);
        assert_eq!(
            planned(&together),
            rows,
            "unchanged rows are left alone, ids and all"
        );

        // A longer lead moves the reminder times of the kept rows; a dropped time removes its
        // rows; nothing is added.
        together
            .execute_batch(
                "UPDATE notification_preferences SET lead_minutes = 60 WHERE user_id = 2;
                 UPDATE medications SET schedule_times = '[\"21:00\"]' WHERE id = 1;",
            )
            .unwrap();
        assert_eq!(plan_users(&together, 1, 3, 7, now).unwrap(), 0);
        let moved = planned(&together);
        assert!(moved.iter().filter(|r| r.2 == 3).all(|r| {
            let due = DateTime::parse_from_rfc3339(&r.4).unwrap();
            let reminder = DateTime::parse_from_rfc3339(&r.5).unwrap();
            due - reminder == Duration::minutes(60)
        }));
        assert!(
            moved
                .iter()
                .filter(|r| r.2 == 1)
                .all(|r| r.4.ends_with("T20:00:00.000Z") || r.4.ends_with("T19:00:00.000Z"))
        );
        let at_nine_pm = |r: &&Row| r.4.ends_with("T20:00:00.000Z") || r.4.ends_with("T19:00:00.000Z");
        let dropped = rows.iter().filter(|r| r.2 == 1 && !at_nine_pm(r)).count();
        assert!(dropped > 0);
        assert_eq!(moved.len(), rows.len() - dropped);

        // Turning reminders off drops the person's unsent ones.
        together
            .execute(
                "UPDATE notification_preferences SET reminders_enabled = 0 WHERE user_id = 2",
                [],
            )
            .unwrap();
        plan_users(&together, 1, 3, 7, now).unwrap();
        assert!(planned(&together).iter().all(|r| r.1 != 2));
    }
}

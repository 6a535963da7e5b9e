//! The stock notices the engine raises in each of its passes (issue 29): "order a refill"
//! when a medication's prescription needs one (the same need the medication's view shows),
//! once per run of stock: none again until stock is added, and none while the refill is
//! marked ordered; and a stock batch that still holds something, announced
//! `EXPIRY_NOTICE_DAYS` before its expiry date and once more when it has expired. Each
//! notice is a reminder row of its own kind that the dispatcher sends on the person's
//! delivery methods, like a low-stock alert.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::Connection;

use super::planner::{OwnerClocks, UserClock};
use super::prescriptions::{self, RefillNeed};
use super::report;
use crate::db::{DbError, Stamp};
use crate::domain::notification::ReminderKind;
use crate::domain::stock::{self, EXPIRY_NOTICE_DAYS};
use crate::store::batches;
use crate::store::medications::{self, Medication};
use crate::store::prescriptions::{self as prescription_store, Prescription};
use crate::store::reminders;

/// What a medication's prescription needs ordering on the owner's day, worked out as the
/// medication's view works it out (so the reminder and the screen agree).
pub fn refill_need(
    conn: &Connection,
    m: &Medication,
    p: &Prescription,
    clock: &UserClock,
) -> rusqlite::Result<Option<RefillNeed>> {
    let inventory = medications::inventory(conn, m.id)?;
    let runs_out_on = inventory
        .as_ref()
        .and_then(|inv| report::runs_out_on(m, inv, clock));
    Ok(prescriptions::need(p, runs_out_on, clock.today()))
}

/// The pass: queues every refill reminder and batch notice due at `now`. Returns how many.
pub fn raise_due(conn: &mut Connection, now: DateTime<Utc>) -> Result<usize, DbError> {
    let tx = conn.transaction()?;
    let stamp = Stamp::from(now);
    let mut raised = 0;
    let mut clocks = OwnerClocks::at(now);
    for (user_id, p) in prescription_store::awaiting_reminder(&tx)? {
        let Some(m) = medications::find(&tx, user_id, p.medication_id)? else {
            continue;
        };
        let clock = clocks.of(&tx, user_id)?;
        let Some(need) = refill_need(&tx, &m, &p, clock)? else {
            continue;
        };
        if reminders::insert_notice(&tx, user_id, m.id, &m.name, ReminderKind::Refill, stamp, stamp)? {
            raised += 1;
        }
        prescription_store::set_reminded(&tx, m.id, need.due_on)?;
    }
    // No time zone is more than a day ahead of UTC (nor, with a day's margin, behind it).
    let utc_today = now.date_naive();
    let soon = utc_today + Duration::days(EXPIRY_NOTICE_DAYS + 2);
    let past = utc_today + Duration::days(1);
    for candidate in batches::awaiting_notice(&tx, soon, past)? {
        let b = &candidate.batch;
        let Some(m) = medications::find(&tx, candidate.user_id, b.medication_id)? else {
            continue;
        };
        let clock = clocks.of(&tx, candidate.user_id)?;
        let today = clock.today();
        let kind = if stock::batch_expired(b.expires_on, today) {
            (!candidate.told_expired).then_some(ReminderKind::BatchExpired)
        } else if stock::batch_expiring_soon(b.expires_on, today) {
            (!candidate.warned).then_some(ReminderKind::BatchExpiring)
        } else {
            None
        };
        let Some(kind) = kind else {
            continue;
        };
        // A batch found expired long ago (entered so, or before this notice existed) is
        // marked, not announced: the medication's stock already says so.
        let announce =
            kind == ReminderKind::BatchExpiring || (today - b.expires_on).num_days() <= EXPIRY_NOTICE_DAYS;
        // The notice is about the expiry day: batches of the medication expiring the same
        // day share it.
        let about = Stamp::from(clock.start_of(b.expires_on));
        if announce && reminders::insert_notice(&tx, candidate.user_id, m.id, &m.name, kind, about, stamp)? {
            raised += 1;
        }
        batches::set_noticed(&tx, b.id, b.expires_on, kind == ReminderKind::BatchExpired)?;
    }
    tx.commit()?;
    Ok(raised)
}

/// The expiry day a batch notice is about: the owner's day its time (`scheduled_time`) falls
/// on.
pub fn notice_day(scheduled: Stamp, clock: &UserClock) -> NaiveDate {
    scheduled.instant().with_timezone(&clock.tz).date_naive()
}

//! Reminders (the spec's scheduled notifications): planned dose instances, one-off
//! low-stock alerts, their delivery state and their take links.

use std::collections::HashMap;
use std::str::FromStr;

use rusqlite::types::{Type, Value};
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};
use serde::Serialize;
use utoipa::ToSchema;

use super::{stamp_at, stamp_or_null_at};
use crate::db::Stamp;
use crate::domain::notification::{ReminderKind, ReminderStatus};
use crate::domain::schedule;

/// A reminder as the API lists it.
#[derive(Debug, Serialize, ToSchema)]
pub struct Reminder {
    pub id: i64,
    /// The English title ("Time for Aspirin"); the web app shows its own by `kind`.
    pub title: String,
    pub kind: ReminderKind,
    /// None once its medication was deleted.
    pub medication_id: Option<i64>,
    pub medication_name: String,
    /// The dose's time (RFC 3339, UTC).
    #[schema(value_type = String)]
    pub scheduled_time: Stamp,
    /// When the reminder goes out (RFC 3339, UTC).
    #[schema(value_type = String)]
    pub reminder_time: Stamp,
    pub status: ReminderStatus,
    pub message: Option<String>,
    /// When a logged dose answered this reminder.
    #[schema(value_type = Option<String>)]
    pub answered_at: Option<Stamp>,
    /// Why its delivery failed.
    pub failure_reason: Option<String>,
}

/// The title people see for a reminder.
pub fn title(kind: ReminderKind, medication_name: &str) -> String {
    match kind {
        ReminderKind::LowStock => format!("Running low on {medication_name}"),
        ReminderKind::Refill => format!("Order a refill of {medication_name}"),
        ReminderKind::BatchExpiring => format!("A batch of {medication_name} expires soon"),
        ReminderKind::BatchExpired => format!("A batch of {medication_name} has expired"),
        _ => format!("Time for {medication_name}"),
    }
}

/// A column holding one of an enum's words; any other word is a broken row.
fn word<T: FromStr>(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    text.parse().map_err(|_| {
        rusqlite::Error::FromSqlConversionFailure(
            index,
            Type::Text,
            format!("unexpected value {text:?}").into(),
        )
    })
}

const COLUMNS: &str = "r.id, r.kind, r.medication_id, r.medication_name, r.scheduled_time, r.reminder_time, \
                       r.status, r.message, r.answered_at, r.failure_reason";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Reminder> {
    let kind: ReminderKind = word(row, 1)?;
    let name: String = row.get(3)?;
    Ok(Reminder {
        id: row.get(0)?,
        title: title(kind, &name),
        kind,
        medication_id: row.get(2)?,
        medication_name: name,
        scheduled_time: stamp_at(row, 4, "reminders", row.get(0)?)?,
        reminder_time: stamp_at(row, 5, "reminders", row.get(0)?)?,
        status: word(row, 6)?,
        message: row.get(7)?,
        answered_at: stamp_or_null_at(row, 8, "reminders", row.get(0)?)?,
        failure_reason: row.get(9)?,
    })
}

pub fn find(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<Option<Reminder>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM reminders r WHERE r.user_id = ?1 AND r.id = ?2"
    ))?
    .query_row([user_id, id], from_row)
    .optional()
}

/// A planned reminder the planner may still change: in the future, scheduled, never
/// attempted and not claimed by a dispatcher.
pub struct Replannable {
    pub id: i64,
    pub medication_id: i64,
    pub scheduled: String,
    pub reminder: String,
    pub medication_name: String,
}

const REPLANNABLE: &str =
    "SELECT id, medication_id, scheduled_time, reminder_time, medication_name FROM reminders
     WHERE kind = 'dose' AND status = 'scheduled' AND attempts = 0 AND claimed_until IS NULL
       AND snoozed_until IS NULL";

fn replannable_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Replannable> {
    Ok(Replannable {
        id: row.get(0)?,
        medication_id: row.get(1)?,
        scheduled: row.get(2)?,
        reminder: row.get(3)?,
        medication_name: row.get(4)?,
    })
}

/// One medication's replannable reminders after `now`.
pub fn replannable_for_medication(
    conn: &Connection,
    medication_id: i64,
    now: Stamp,
) -> rusqlite::Result<Vec<Replannable>> {
    conn.prepare_cached(&format!(
        "{REPLANNABLE} AND medication_id = ?1 AND scheduled_time > ?2"
    ))?
    .query_map(params![medication_id, now], replannable_row)?
    .collect()
}

/// The replannable reminders after `now` of the users with ids from `first` to `last`,
/// by medication: one query for a whole chunk of the planner's pass.
pub fn replannable_for_users(
    conn: &Connection,
    first: i64,
    last: i64,
    now: Stamp,
) -> rusqlite::Result<HashMap<i64, Vec<Replannable>>> {
    let mut by_medication: HashMap<i64, Vec<Replannable>> = HashMap::new();
    let mut statement = conn.prepare_cached(&format!(
        "{REPLANNABLE} AND user_id BETWEEN ?1 AND ?2 AND scheduled_time > ?3"
    ))?;
    for row in statement.query_map(params![first, last, now], replannable_row)? {
        let row = row?;
        by_medication.entry(row.medication_id).or_default().push(row);
    }
    Ok(by_medication)
}

/// Writes plans for a pass of the planner. New reminders are staged in a temporary table
/// and added by one `INSERT … SELECT` at the end: SQLite's cost per statement (opening the
/// table, its five indexes and the tables its keys point to) is then paid once per pass
/// instead of once per reminder.
pub struct PlanWriter<'c> {
    conn: &'c Connection,
    stage: rusqlite::CachedStatement<'c>,
    update: rusqlite::CachedStatement<'c>,
    delete: rusqlite::CachedStatement<'c>,
    now: &'c str,
}

impl<'c> PlanWriter<'c> {
    /// Starts writing plans made at `now` (the new reminders' creation time).
    pub fn new(conn: &'c Connection, now: &'c str) -> rusqlite::Result<PlanWriter<'c>> {
        conn.prepare_cached(
            "CREATE TEMP TABLE IF NOT EXISTS planned_reminders (
                 user_id INTEGER, medication_id INTEGER, medication_name TEXT, scheduled_time TEXT,
                 reminder_time TEXT)",
        )?
        .execute([])?;
        conn.prepare_cached("DELETE FROM temp.planned_reminders")?
            .execute([])?;
        Ok(PlanWriter {
            conn,
            stage: conn.prepare_cached("INSERT INTO temp.planned_reminders VALUES (?1, ?2, ?3, ?4, ?5)")?,
            update: conn.prepare_cached(
                "UPDATE reminders SET reminder_time = ?2, next_attempt_at = ?2, medication_name = ?3
                 WHERE id = ?1",
            )?,
            delete: conn.prepare_cached("DELETE FROM reminders WHERE id = ?1")?,
            now,
        })
    }

    /// Brings a medication's replannable reminders (`existing`, as read in this
    /// transaction) in line with `planned` (scheduled, reminder) pairs: ones no longer
    /// planned are removed, new ones staged to be added by `finish`, kept ones get the new
    /// reminder time and name; unchanged ones are not written. Sent, failed, cancelled and
    /// half-delivered reminders, and the past, stay as they are.
    pub fn apply(
        &mut self,
        user_id: i64,
        medication_id: i64,
        medication_name: &str,
        planned: &[(String, String)],
        existing: Vec<Replannable>,
    ) -> rusqlite::Result<()> {
        let mut existing: HashMap<String, Replannable> =
            existing.into_iter().map(|r| (r.scheduled.clone(), r)).collect();
        for (scheduled, reminder) in planned {
            match existing.remove(scheduled) {
                Some(kept) if kept.reminder == *reminder && kept.medication_name == medication_name => {}
                Some(kept) => {
                    self.update.execute(params![kept.id, reminder, medication_name])?;
                }
                None => {
                    self.stage.execute(params![
                        user_id,
                        medication_id,
                        medication_name,
                        scheduled,
                        reminder
                    ])?;
                }
            }
        }
        for stale in existing.into_values() {
            self.delete.execute([stale.id])?;
        }
        Ok(())
    }

    /// Adds the staged reminders; returns how many were added. A sent or claimed reminder
    /// may hold one's instant already: it stays as it is.
    pub fn finish(self) -> rusqlite::Result<usize> {
        let added = self
            .conn
            .prepare_cached(
                "INSERT INTO reminders (user_id, medication_id, medication_name, scheduled_time,
                                        reminder_time, next_attempt_at, created_at)
                 SELECT user_id, medication_id, medication_name, scheduled_time, reminder_time, reminder_time, ?1
                 FROM temp.planned_reminders WHERE true
                 ON CONFLICT (medication_id, kind, scheduled_time) DO NOTHING",
            )?
            .execute([self.now])?;
        self.conn
            .prepare_cached("DELETE FROM temp.planned_reminders")?
            .execute([])?;
        Ok(added)
    }
}

/// Removes a medication's reminders that have not gone out yet (it is being deleted or
/// its reminders are off). Sent and failed ones stay as its delivery record.
pub fn drop_unsent_for_medication(conn: &Connection, medication_id: i64) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM reminders WHERE medication_id = ?1 AND status = 'scheduled' AND sent_at IS NULL
           AND claimed_until IS NULL",
        [medication_id],
    )?;
    Ok(())
}

/// Removes the user's planned dose reminders that have not gone out (reminders turned off).
pub fn drop_unsent_for_user(conn: &Connection, user_id: i64) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM reminders WHERE user_id = ?1 AND kind = 'dose' AND status = 'scheduled' AND sent_at IS NULL
           AND attempts = 0 AND claimed_until IS NULL",
        [user_id],
    )?;
    Ok(())
}

/// A one-off reminder someone set for a dose.
pub struct OneOff<'a> {
    pub medication_id: i64,
    pub medication_name: &'a str,
    pub scheduled: &'a str,
    pub reminder: &'a str,
    pub message: Option<&'a str>,
}

/// Adds a one-off reminder. `None` when the medication already has one for that instant.
pub fn insert_one_off(
    conn: &Connection,
    user_id: i64,
    r: &OneOff<'_>,
    now: Stamp,
) -> rusqlite::Result<Option<i64>> {
    let changed = conn.execute(
        "INSERT INTO reminders (user_id, medication_id, medication_name, kind, scheduled_time, reminder_time,
                                next_attempt_at, message, created_at)
         VALUES (?1, ?2, ?3, 'one_off', ?4, ?5, ?5, ?6, ?7)
         ON CONFLICT (medication_id, kind, scheduled_time) DO NOTHING",
        params![
            user_id,
            r.medication_id,
            r.medication_name,
            r.scheduled,
            r.reminder,
            r.message,
            now
        ],
    )?;
    Ok((changed == 1).then(|| conn.last_insert_rowid()))
}

/// Queues a low-stock alert for right now.
pub fn insert_low_stock(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    medication_name: &str,
    now: Stamp,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO reminders (user_id, medication_id, medication_name, kind, scheduled_time, reminder_time,
                                next_attempt_at, created_at)
         VALUES (?1, ?2, ?3, 'low_stock', ?4, ?4, ?4, ?4)
         ON CONFLICT (medication_id, kind, scheduled_time) DO NOTHING",
        params![user_id, medication_id, medication_name, now],
    )?;
    Ok(())
}

/// Queues a stock notice (a refill to order, a batch expiring or expired) of `kind` for
/// right now; `scheduled` is what it is about (the same key is never queued twice). Whether
/// it was queued.
pub fn insert_notice(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    medication_name: &str,
    kind: ReminderKind,
    scheduled: Stamp,
    now: Stamp,
) -> rusqlite::Result<bool> {
    let word = match kind {
        ReminderKind::Refill => "refill",
        ReminderKind::BatchExpiring => "batch_expiring",
        ReminderKind::BatchExpired => "batch_expired",
        ReminderKind::LowStock => "low_stock",
        // Doses are planned, not queued as notices.
        ReminderKind::Dose | ReminderKind::OneOff => return Ok(false),
    };
    let changed = conn
        .prepare_cached(
            "INSERT INTO reminders (user_id, medication_id, medication_name, kind, scheduled_time, reminder_time,
                                    next_attempt_at, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?6)
             ON CONFLICT (medication_id, kind, scheduled_time) DO NOTHING",
        )?
        .execute(params![user_id, medication_id, medication_name, word, scheduled, now])?;
    Ok(changed == 1)
}

/// A reminder row for a planned dose that had none (its time was past when it was planned),
/// for a dose a person logs by that time: never sent ("The dose was already logged"), it is
/// what the entry answers, so that no other dose's reminder or grace takes the entry. `None`
/// when the dose has a reminder row already.
pub fn insert_unsent_dose(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    medication_name: &str,
    at: Stamp,
    now: Stamp,
) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(
        "INSERT INTO reminders (user_id, medication_id, medication_name, kind, scheduled_time, reminder_time,
                                status, failure_reason, next_attempt_at, created_at)
         VALUES (?1, ?2, ?3, 'dose', ?4, ?4, 'cancelled', ?6, NULL, ?5)
         ON CONFLICT (medication_id, kind, scheduled_time) DO NOTHING
         RETURNING id",
    )?
    .query_row(
        params![
            user_id,
            medication_id,
            medication_name,
            at,
            now,
            ANSWERED_BEFORE_SENT
        ],
        |row| row.get(0),
    )
    .optional()
}

/// A page of the user's reminders, soonest first, with the total.
pub fn page(
    conn: &Connection,
    user_id: i64,
    status: Option<ReminderStatus>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(Vec<Reminder>, i64)> {
    let mut clause = String::from("r.user_id = ?");
    let mut values = vec![Value::Integer(user_id)];
    if let Some(status) = status {
        clause.push_str(" AND r.status = ?");
        values.push(Value::Text(status.as_str().to_owned()));
    }
    let total: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM reminders r WHERE {clause}"))?
        .query_row(params_from_iter(values.iter()), |row| row.get(0))?;
    values.push(Value::Integer(limit));
    values.push(Value::Integer(offset));
    let rows = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM reminders r WHERE {clause} ORDER BY r.scheduled_time, r.id LIMIT ? OFFSET ?"
        ))?
        .query_map(params_from_iter(values.iter()), from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((rows, total))
}

/// Cancels a scheduled reminder, which also stops its retries. False while a dispatcher is
/// sending it.
pub fn cancel(conn: &Connection, user_id: i64, id: i64, now: Stamp) -> rusqlite::Result<bool> {
    let changed = conn.execute(
        "UPDATE reminders SET status = 'cancelled', next_attempt_at = NULL, claimed_until = NULL
         WHERE user_id = ?1 AND id = ?2 AND status = 'scheduled'
           AND (claimed_until IS NULL OR claimed_until <= ?3)",
        params![user_id, id, now],
    )?;
    Ok(changed == 1)
}

/// Sets a scheduled reminder's message.
pub fn set_message(
    conn: &Connection,
    user_id: i64,
    id: i64,
    message: Option<&str>,
) -> rusqlite::Result<bool> {
    let changed = conn.execute(
        "UPDATE reminders SET message = ?3 WHERE user_id = ?1 AND id = ?2 AND status = 'scheduled'",
        params![user_id, id, message],
    )?;
    Ok(changed == 1)
}

/// Claims a scheduled reminder for sending right now (the "send now" action). False when
/// it is not scheduled or a dispatcher holds it.
pub fn claim_now(
    conn: &Connection,
    user_id: i64,
    id: i64,
    now: Stamp,
    until: &str,
) -> rusqlite::Result<bool> {
    let changed = conn.execute(
        "UPDATE reminders SET next_attempt_at = ?3, reminder_time = min(reminder_time, ?3), claimed_until = ?4
         WHERE user_id = ?1 AND id = ?2 AND status = 'scheduled'
           AND (claimed_until IS NULL OR claimed_until <= ?3)",
        params![user_id, id, now, until],
    )?;
    Ok(changed == 1)
}

/// The earliest dose instant of the user's reminders a logged dose may still answer.
pub fn first_open(
    conn: &Connection,
    user_id: i64,
) -> rusqlite::Result<Option<chrono::DateTime<chrono::Utc>>> {
    conn.prepare_cached(
        "SELECT id, scheduled_time FROM reminders
         WHERE user_id = ?1 AND kind IN ('dose', 'one_off') AND answered_at IS NULL AND status IN ('scheduled', 'sent')
         ORDER BY scheduled_time LIMIT 1",
    )?
    .query_row([user_id], |row| Ok(stamp_at(row, 1, "reminders", row.get(0)?)?.instant()))
    .optional()
}

/// A logged dose answers a reminder (DESIGN §4): the one named by `dosage_id`, else the
/// medication's unanswered reminder nearest to the dose, from 12 hours before it to one
/// hour after (so logging a little early silences the coming reminder). Answering stops
/// repeats. Returns the reminder answered.
/// The reminders the history entry `history_id` answered are open again (the entry is
/// deleted or now answers another dose).
pub fn reopen(conn: &Connection, user_id: i64, history_id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE reminders SET answered_at = NULL, history_id = NULL, answered_by = NULL, answered_by_name = NULL
         WHERE user_id = ?1 AND history_id = ?2",
    )?
    .execute([user_id, history_id])?;
    Ok(())
}

/// The open (unanswered) reminder of a planned dose of the medication at `at`, if it has one.
pub fn open_dose_at(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    at: Stamp,
) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(
        "SELECT id FROM reminders
         WHERE user_id = ?1 AND medication_id = ?2 AND kind = 'dose' AND scheduled_time = ?3 AND answered_at IS NULL",
    )?
    .query_row(params![user_id, medication_id, at], |row| row.get(0))
    .optional()
}

pub fn answer(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    dosage_id: Option<i64>,
    taken: Stamp,
    history_id: i64,
) -> rusqlite::Result<Option<i64>> {
    let named = match dosage_id {
        Some(id) => conn
            .prepare_cached(
                "SELECT id FROM reminders WHERE id = ?1 AND user_id = ?2 AND medication_id = ?3
                   AND kind IN ('dose', 'one_off') AND answered_at IS NULL",
            )?
            .query_row([id, user_id, medication_id], |row| row.get::<_, i64>(0))
            .optional()?,
        None => None,
    };
    // Else the latest reminder that has come due (up to 12 hours back); else, for a dose
    // logged a little early, the one coming within the hour.
    let target = match named {
        Some(id) => Some(id),
        None => conn
            .prepare_cached(
                "SELECT id FROM reminders
                 WHERE medication_id = ?1 AND user_id = ?2 AND kind IN ('dose', 'one_off') AND answered_at IS NULL
                   AND status IN ('scheduled', 'sent')
                   AND scheduled_time >= strftime('%Y-%m-%dT%H:%M:%fZ', ?3, '-12 hours')
                   AND scheduled_time <= strftime('%Y-%m-%dT%H:%M:%fZ', ?3, '+1 hour')
                 ORDER BY reminder_time <= ?3 DESC,
                          CASE WHEN reminder_time <= ?3 THEN -julianday(scheduled_time)
                               ELSE julianday(scheduled_time) END,
                          id
                 LIMIT 1",
            )?
            .query_row(params![medication_id, user_id, taken], |row| row.get::<_, i64>(0))
            .optional()?,
    };
    if let Some(id) = target {
        // A one-off reminder set for the same dose as a planned one is answered with it.
        let answered: Vec<i64> = conn
            .prepare_cached(
                "UPDATE reminders SET answered_at = ?3, history_id = ?4,
                    answered_by = (SELECT logged_by FROM dose_history WHERE id = ?4),
                    answered_by_name = (SELECT logged_by_name FROM dose_history WHERE id = ?4),
                    next_attempt_at = CASE WHEN status = 'sent' OR snoozed_until IS NOT NULL THEN NULL
                                           ELSE next_attempt_at END,
                    status = CASE WHEN status = 'scheduled' AND snoozed_until IS NOT NULL AND sent_at IS NOT NULL
                                  THEN 'sent' ELSE status END
                 WHERE medication_id = ?2 AND kind IN ('dose', 'one_off') AND answered_at IS NULL
                   AND scheduled_time = (SELECT scheduled_time FROM reminders WHERE id = ?1)
                 RETURNING id",
            )?
            .query_map(params![id, medication_id, taken, history_id], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let outcome: Option<String> = conn
            .prepare_cached("SELECT status FROM dose_history WHERE id = ?1")?
            .query_row([history_id], |row| row.get(0))
            .optional()?;
        if let Some(outcome) = outcome {
            for reminder in answered {
                withdraw(conn, reminder, &outcome, taken)?;
            }
        }
    }
    Ok(target)
}

// --- Withdrawing a handled reminder's notifications ---------------------------------------

/// A device's push service accepted a reminder's notification (with `topic`): it is
/// withdrawn there once the reminder is handled.
pub fn shown_on(
    conn: &Connection,
    reminder_id: i64,
    subscription_id: i64,
    topic: &str,
) -> rusqlite::Result<()> {
    // The device may have been unsubscribed while the push was out.
    conn.prepare_cached(
        "INSERT INTO reminder_devices (reminder_id, subscription_id, topic)
         SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM push_subscriptions WHERE id = ?2)
         ON CONFLICT (reminder_id, subscription_id) DO UPDATE SET topic = excluded.topic",
    )?
    .execute(params![reminder_id, subscription_id, topic])?;
    Ok(())
}

/// How a reminder was handled after its round `number` went out, if it was: the answering
/// entry's status (taken when the entry is gone), or snoozed.
pub fn handled_since(conn: &Connection, id: i64, number: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached(
        "SELECT CASE WHEN r.answered_at IS NOT NULL THEN coalesce(h.status, 'taken')
                     WHEN r.round_offset > ?2 THEN 'snoozed' END
         FROM reminders r LEFT JOIN dose_history h ON h.id = r.history_id WHERE r.id = ?1",
    )?
    .query_row(params![id, number], |row| row.get::<_, Option<String>>(0))
    .optional()
    .map(Option::flatten)
}

/// Whose devices and channels a withdrawal reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Whose {
    Everyone,
    Holder,
    Carers,
}

impl Whose {
    fn as_str(self) -> &'static str {
        match self {
            Whose::Everyone => "everyone",
            Whose::Holder => "holder",
            Whose::Carers => "carers",
        }
    }
}

/// Queues a withdrawal (`outcome`: taken, skipped, snoozed or missed) for the devices that
/// show the reminder's notification. A dose taken or skipped is handled: every device is
/// told, carers' too, and alerts to carers not yet out are not sent. One snoozed or recorded
/// missed still wants someone: only the account holder's devices are told, carers' alerts
/// stay. Cheap when no device shows it, as when push is not used.
pub fn withdraw(conn: &Connection, reminder_id: i64, outcome: &str, now: Stamp) -> rusqlite::Result<usize> {
    if outcome == "taken" || outcome == "skipped" {
        crate::store::escalations::withdraw_pending(conn, reminder_id)?;
        withdraw_from(conn, reminder_id, outcome, Whose::Everyone, now)
    } else {
        withdraw_from(conn, reminder_id, outcome, Whose::Holder, now)
    }
}

/// Queues a withdrawal (`outcome`) of carers' alerts about the reminder's dose for the
/// carers' devices and channels that show one; the account holder's are left alone.
pub fn withdraw_carers_alerts(
    conn: &Connection,
    reminder_id: i64,
    outcome: &str,
    now: Stamp,
) -> rusqlite::Result<usize> {
    withdraw_from(conn, reminder_id, outcome, Whose::Carers, now)
}

fn withdraw_from(
    conn: &Connection,
    reminder_id: i64,
    outcome: &str,
    whose: Whose,
    now: Stamp,
) -> rusqlite::Result<usize> {
    // Channels showing it get its last word ("✓ Taken at 08:03"), replacing it.
    crate::store::channels::queue_handled(conn, reminder_id, outcome, whose == Whose::Carers, now)?;
    const CHOSEN: &str = "reminder_id = ?1 AND CASE ?2 WHEN 'everyone' THEN 1
        ELSE (subscription_id IN (SELECT s.id FROM push_subscriptions s JOIN reminders r ON r.user_id = s.user_id
                                  WHERE r.id = ?1)) = (?2 = 'holder') END";
    let queued = conn
        .prepare_cached(&format!(
            "INSERT INTO push_withdrawals (reminder_id, subscription_id, topic, outcome, created_at)
             SELECT reminder_id, subscription_id, topic, ?3, ?4 FROM reminder_devices WHERE {CHOSEN}
             ON CONFLICT (reminder_id, subscription_id) DO UPDATE SET topic = excluded.topic,
                outcome = excluded.outcome, created_at = excluded.created_at"
        ))?
        .execute(params![reminder_id, whose.as_str(), outcome, now])?;
    if queued > 0 {
        conn.prepare_cached(&format!("DELETE FROM reminder_devices WHERE {CHOSEN}"))?
            .execute(params![reminder_id, whose.as_str()])?;
    }
    Ok(queued)
}

/// Whether any device shows a reminder or has a withdrawal waiting.
pub fn shown_anywhere(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM reminder_devices) OR EXISTS (SELECT 1 FROM push_withdrawals)",
        [],
        |row| row.get(0),
    )
}

/// Whether withdrawals wait to be pushed (a handled reminder was shown on some device).
pub fn has_withdrawals(conn: &Connection) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM push_withdrawals)")?
        .query_row([], |row| row.get(0))
}

/// A withdrawal waiting to be pushed.
#[derive(Debug, Clone)]
pub struct Withdrawal {
    pub reminder_id: i64,
    pub subscription: crate::store::push_subscriptions::Subscription,
    pub topic: String,
    pub outcome: String,
}

/// Takes up to `limit` queued withdrawals off the queue: they are sent once, best effort.
pub fn take_withdrawals(conn: &Connection, limit: i64) -> rusqlite::Result<Vec<Withdrawal>> {
    let rows: Vec<(i64, i64, String, String)> = conn
        .prepare_cached(
            "DELETE FROM push_withdrawals WHERE (reminder_id, subscription_id) IN
                 (SELECT reminder_id, subscription_id FROM push_withdrawals LIMIT ?1)
             RETURNING reminder_id, subscription_id, topic, outcome",
        )?
        .query_map([limit], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (reminder_id, subscription_id, topic, outcome) in rows {
        if let Some(subscription) = crate::store::push_subscriptions::find(conn, subscription_id)? {
            out.push(Withdrawal {
                reminder_id,
                subscription,
                topic,
                outcome,
            });
        }
    }
    Ok(out)
}

// --- Snooze and grace ---------------------------------------------------------------------

/// Snoozes an unanswered reminder until `until`: it is scheduled again then (its follow-ups
/// stop, and any round in flight no longer counts), and its notifications are withdrawn.
/// Its later rounds are numbered after every earlier one. False when it was answered.
pub fn snooze(conn: &Connection, id: i64, until: &str, now: Stamp) -> rusqlite::Result<bool> {
    let changed = conn
        .prepare_cached(
            "UPDATE reminders SET status = 'scheduled', snoozed_until = ?2, reminder_time = ?2,
                next_attempt_at = ?2, attempts = 0, failure_reason = NULL, claimed_until = NULL,
                round_offset = round_offset + repeats_sent + 2, repeats_sent = 0
             WHERE id = ?1 AND answered_at IS NULL AND kind IN ('dose', 'one_off')",
        )?
        .execute(params![id, until])?;
    if changed == 1 {
        withdraw(conn, id, "snoozed", now)?;
    }
    Ok(changed == 1)
}

/// A planned dose whose grace has run out unlogged.
#[derive(Debug)]
pub struct Overdue {
    pub id: i64,
    pub user_id: i64,
    pub medication_id: i64,
    pub scheduled_time: Stamp,
}

/// SQL for when the grace of reminder `r` (of medication `m`) runs out: its dose time, or the
/// snooze that moved it, plus the medication's `grace_minutes` (else the placeholder's default).
/// One expression for the grace pass and for undoing it after the clock went back.
macro_rules! grace_end {
    ($default:literal) => {
        concat!(
            "strftime('%Y-%m-%dT%H:%M:%fZ', max(r.scheduled_time, coalesce(r.snoozed_until, '')), '+' || coalesce(json_extract(m.schedule_rules, '$.grace_minutes'), ",
            $default,
            ") || ' minutes')"
        )
    };
}

/// Up to `limit` planned doses of scheduled medications, due from `from` on, still
/// unanswered `grace_minutes` (the medication's, default `default_grace`) after their time
/// (or after the snooze that moved their reminder) at `now`. Cancelled reminders are left
/// alone: someone chose not to be reminded of that dose.
pub fn overdue(
    conn: &Connection,
    from: &str,
    now: Stamp,
    default_grace: u32,
    limit: i64,
) -> rusqlite::Result<Vec<Overdue>> {
    conn.prepare_cached(concat!(
        "SELECT r.id, r.user_id, r.medication_id, r.scheduled_time
         FROM reminders r JOIN medications m ON m.id = r.medication_id
         WHERE r.answered_at IS NULL AND r.kind = 'dose' AND r.scheduled_time >= ?1 AND r.scheduled_time <= ?2
           AND r.status <> 'cancelled' AND m.frequency <> 'as_needed'
           AND ",
        grace_end!("?3"),
        " <= ?2
         ORDER BY r.scheduled_time LIMIT ?4"
    ))?
    .query_map(params![from, now, default_grace, limit], |row| {
        Ok(Overdue {
            id: row.get(0)?,
            user_id: row.get(1)?,
            medication_id: row.get(2)?,
            scheduled_time: stamp_at(row, 3, "reminders", row.get(0)?)?,
        })
    })?
    .collect()
}

/// A dose the engine recorded missed (no person did) whose grace has not run out at `now`:
/// recorded while the clock was ahead. (reminder, user, history entry.)
pub fn missed_before_their_time(
    conn: &Connection,
    now: Stamp,
    default_grace: u32,
) -> rusqlite::Result<Vec<(i64, i64, i64)>> {
    conn.prepare_cached(concat!(
        "SELECT r.id, r.user_id, h.id
         FROM reminders r JOIN dose_history h ON h.id = r.history_id JOIN medications m ON m.id = r.medication_id
         WHERE r.answered_at > ?1 AND r.kind = 'dose' AND h.status = 'missed' AND h.logged_by IS NULL
           AND ",
        grace_end!("?2"),
        " > ?1"
    ))?
    .query_map(params![now, default_grace], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
    .collect()
}

/// Reminders that failed as expired although their time is at or after `since` (now less the
/// catch-up window): they expired while the clock was ahead, unsent.
pub fn expired_before_their_time(conn: &Connection, since: &str) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(
        "SELECT id FROM reminders
         WHERE status = 'failed' AND failure_reason = 'expired' AND answered_at IS NULL AND reminder_time >= ?1",
    )?
    .query_map([since], |row| row.get(0))?
    .collect()
}

/// Why a reminder was not sent: its dose was answered first (logged, or recorded missed).
pub const ANSWERED_BEFORE_SENT: &str = "The dose was already logged";

/// Whether the reminder's dose was recorded missed by the engine (its grace ran out), not
/// answered by a person.
pub fn missed_by_engine(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM reminders r JOIN dose_history h ON h.id = r.history_id
                        WHERE r.id = ?1 AND h.status = 'missed' AND h.logged_by IS NULL)",
    )?
    .query_row([id], |row| row.get(0))
}

/// Plans an unanswered reminder again after the clock went back to `now`: one sent before
/// `now` stays sent and its follow-ups (if any are left) go on from `now`; one not sent, or
/// sent at a time that is again to come, is due at its own time (or its snooze's). One a
/// person cancelled stays cancelled; one cancelled only because its dose was answered first
/// (by a missed record now withdrawn) is planned again.
pub fn plan_again(conn: &Connection, id: i64, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE reminders SET
            status = CASE WHEN sent_at <= ?2 THEN 'sent' ELSE 'scheduled' END,
            next_attempt_at = CASE WHEN sent_at <= ?2 THEN ?2
                                   ELSE max(reminder_time, coalesce(snoozed_until, '')) END,
            repeats_sent = CASE WHEN sent_at <= ?2 THEN repeats_sent ELSE 0 END,
            sent_at = CASE WHEN sent_at <= ?2 THEN sent_at END,
            attempts = 0, claimed_until = NULL, failure_reason = NULL
         WHERE id = ?1 AND answered_at IS NULL AND (status <> 'cancelled' OR failure_reason = ?3)",
    )?
    .execute(params![id, now, ANSWERED_BEFORE_SENT])?;
    Ok(())
}

/// A history entry of the medication logged from `from` to `until` that answers no
/// reminder: logged without naming one (too early for the rule of `answer`), it still
/// stands for the dose.
pub fn unclaimed_entry(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    from: &str,
    until: &str,
) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(
        "SELECT h.id FROM dose_history h
         WHERE h.user_id = ?1 AND h.medication_id = ?2 AND h.taken_at >= ?3 AND h.taken_at <= ?4
           AND NOT EXISTS (SELECT 1 FROM reminders x WHERE x.medication_id = ?2 AND x.history_id = h.id)
         ORDER BY h.taken_at LIMIT 1",
    )?
    .query_row(params![user_id, medication_id, from, until], |row| row.get(0))
    .optional()
}

/// Links a dose's reminder (and its one-off twin) to an entry that answers it.
pub fn link_entry(conn: &Connection, id: i64, history_id: i64, at: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE reminders SET answered_at = ?3, history_id = ?2,
            answered_by = (SELECT logged_by FROM dose_history WHERE id = ?2),
            answered_by_name = (SELECT logged_by_name FROM dose_history WHERE id = ?2),
            next_attempt_at = CASE WHEN status = 'sent' THEN NULL ELSE next_attempt_at END
         WHERE answered_at IS NULL AND kind IN ('dose', 'one_off')
           AND medication_id = (SELECT medication_id FROM reminders WHERE id = ?1)
           AND scheduled_time = (SELECT scheduled_time FROM reminders WHERE id = ?1)",
    )?
    .execute(params![id, history_id, at])?;
    Ok(())
}

/// A dose reminder as the day's view needs it.
#[derive(Debug)]
pub struct DoseReminder {
    pub id: i64,
    pub kind: String,
    pub medication_id: i64,
    pub scheduled_time: Stamp,
    pub history_id: Option<i64>,
}

/// The user's dose and one-off reminders for doses from `from` until before `until`, and
/// those answered by an entry logged since `answered_since` (whatever their dose time), so
/// that such an entry is known to answer its own reminder.
pub fn for_days(
    conn: &Connection,
    user_id: i64,
    from: &str,
    until: &str,
    answered_since: &str,
) -> rusqlite::Result<Vec<DoseReminder>> {
    conn.prepare_cached(
        "SELECT id, kind, medication_id, scheduled_time, history_id FROM reminders
         WHERE user_id = ?1 AND kind IN ('dose', 'one_off') AND medication_id IS NOT NULL
           AND ((scheduled_time >= ?2 AND scheduled_time < ?3)
                OR (history_id IS NOT NULL AND answered_at >= ?4))",
    )?
    .query_map(params![user_id, from, until, answered_since], |row| {
        Ok(DoseReminder {
            id: row.get(0)?,
            kind: row.get(1)?,
            medication_id: row.get(2)?,
            scheduled_time: stamp_at(row, 3, "reminders", row.get(0)?)?,
            history_id: row.get(4)?,
        })
    })?
    .collect()
}

// --- Take links -------------------------------------------------------------------------

/// A take link for a reminder, sent to `recipient` (a carer), or with none to the account
/// holder.
pub fn add_take_token(
    conn: &Connection,
    hash: &str,
    reminder_id: i64,
    expires: &str,
    recipient: Option<i64>,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO take_tokens (token_hash, reminder_id, expires_at, user_id) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![hash, reminder_id, expires, recipient])?;
    Ok(())
}

pub fn prune_take_tokens(conn: &Connection, now: Stamp) -> rusqlite::Result<usize> {
    conn.execute("DELETE FROM take_tokens WHERE expires_at <= ?1", [now])
}

/// What a take link shows and logs against.
#[derive(Debug)]
pub struct TakeTarget {
    pub reminder: Reminder,
    pub history_id: Option<i64>,
    pub user_id: i64,
    /// Until when the reminder is snoozed (while it is scheduled again).
    pub snoozed_until: Option<Stamp>,
    /// The carer the link was sent to; `None` for the account holder's own.
    pub recipient: Option<i64>,
    /// Who logged the entry that answers the reminder, by name (null for the engine's own
    /// "missed" and for entries from before carers).
    pub handled_by: Option<String>,
}

/// The reminder (and its owner) a live take token belongs to.
pub fn by_take_token(conn: &Connection, hash: &str, now: Stamp) -> rusqlite::Result<Option<TakeTarget>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS}, r.history_id, r.user_id,
                CASE WHEN r.status = 'scheduled' AND r.answered_at IS NULL THEN r.snoozed_until END,
                t.user_id, CASE WHEN r.answered_at IS NOT NULL THEN coalesce(r.answered_by_name, h.logged_by_name) END
         FROM take_tokens t JOIN reminders r ON r.id = t.reminder_id
         LEFT JOIN dose_history h ON h.id = r.history_id
         WHERE t.token_hash = ?1 AND t.expires_at > ?2"
    ))?
    .query_row(params![hash, now], |row| {
        Ok(TakeTarget {
            reminder: from_row(row)?,
            history_id: row.get(10)?,
            user_id: row.get(11)?,
            snoozed_until: stamp_or_null_at(row, 12, "reminders", row.get(0)?)?,
            recipient: row.get(13)?,
            handled_by: row.get(14)?,
        })
    })
    .optional()
}

// --- The dispatcher's side ----------------------------------------------------------------

/// A claim: the instant it lapses plus a random tag, so that text order is still time
/// order and every claim is its own. Updates after sending check they still hold it.
pub fn new_claim(until: &str) -> String {
    format!("{until}#{}", &crate::security::codes::link_token()[..12])
}

/// Claims up to `limit` reminders that need the dispatcher now with `claim`. A claim that
/// lapses (a crash mid-send) makes the row claimable again.
pub fn claim_due(conn: &Connection, now: Stamp, claim: &str, limit: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(
        "UPDATE reminders SET claimed_until = ?2
         WHERE id IN (SELECT id FROM reminders
                      WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ?1
                        AND (claimed_until IS NULL OR claimed_until <= ?1)
                      ORDER BY next_attempt_at LIMIT ?3)
         RETURNING id",
    )?
    .query_map(params![now, claim, limit], |row| row.get(0))?
    .collect()
}

/// When the dispatcher next has a reminder to act on (its time, a retry or a repeat), from
/// the ones nobody holds at `now`; `None` when nothing is planned.
pub fn next_due(conn: &Connection, now: Stamp) -> rusqlite::Result<Option<Stamp>> {
    conn.prepare_cached(
        "SELECT next_attempt_at FROM reminders
         WHERE next_attempt_at IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= ?1)
         ORDER BY next_attempt_at LIMIT 1",
    )?
    .query_row([now], |row| row.get(0))
    .optional()
}

/// A claimed reminder with the delivery state the dispatcher needs.
#[derive(Debug)]
pub struct Job {
    pub reminder: Reminder,
    pub user_id: i64,
    pub attempts: i64,
    pub repeats_sent: i64,
    pub next_attempt_at: Option<Stamp>,
    /// A claim (`new_claim`: its lapse and a tag), not a bare time.
    pub claimed_until: Option<String>,
    /// Rounds used before the latest snooze: a round's number is this plus its own.
    pub round_offset: i64,
    /// A planned dose's: when its grace runs out (until then, a reminder still helps).
    pub grace_ends_at: Option<Stamp>,
}

pub fn job(conn: &Connection, id: i64) -> rusqlite::Result<Option<Job>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS}, r.user_id, r.attempts, r.repeats_sent, r.next_attempt_at,
                r.claimed_until, r.round_offset,
                CASE WHEN r.kind = 'dose' AND m.frequency <> 'as_needed' THEN {} END
         FROM reminders r LEFT JOIN medications m ON m.id = r.medication_id WHERE r.id = ?1",
        grace_end!("?2")
    ))?
    .query_row(params![id, schedule::DEFAULT_GRACE_MINUTES], |row| {
        Ok(Job {
            reminder: from_row(row)?,
            user_id: row.get(10)?,
            attempts: row.get(11)?,
            repeats_sent: row.get(12)?,
            next_attempt_at: stamp_or_null_at(row, 13, "reminders", id)?,
            claimed_until: row.get(14)?,
            round_offset: row.get(15)?,
            grace_ends_at: stamp_or_null_at(row, 16, "reminders", id)?,
        })
    })
    .optional()
}

/// Releases a claim without a delivery: the reminder ends with `status` and `reason`.
pub fn finish(
    conn: &Connection,
    id: i64,
    claim: &str,
    status: &str,
    reason: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE reminders SET status = ?2, failure_reason = coalesce(?3, failure_reason), next_attempt_at = NULL,
            claimed_until = NULL
         WHERE id = ?1 AND claimed_until = ?4",
        params![id, status, reason, claim],
    )?;
    Ok(())
}

/// A round delivered on at least one channel: sent, with the next repeat (if any) due then.
pub fn delivered(
    conn: &Connection,
    id: i64,
    claim: &str,
    now: Stamp,
    repeat: bool,
    next_repeat: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE reminders SET status = 'sent', sent_at = coalesce(sent_at, ?2), attempts = 0,
            failure_reason = NULL, claimed_until = NULL,
            repeats_sent = repeats_sent + ?3,
            next_attempt_at = CASE WHEN answered_at IS NULL THEN ?4 END
         WHERE id = ?1 AND claimed_until = ?5 AND status IN ('scheduled', 'sent')",
        params![id, now, i64::from(repeat), next_repeat, claim],
    )?;
    Ok(())
}

/// A first delivery round that no channel took: try again at `retry_at`, or, with none,
/// mark the reminder failed with `reason`.
pub fn round_failed(
    conn: &Connection,
    id: i64,
    claim: &str,
    retry_at: Option<&str>,
    reason: &str,
) -> rusqlite::Result<()> {
    match retry_at {
        Some(at) => conn.execute(
            "UPDATE reminders SET attempts = attempts + 1, next_attempt_at = ?2, claimed_until = NULL,
                failure_reason = ?3 WHERE id = ?1 AND claimed_until = ?4",
            params![id, at, reason, claim],
        )?,
        None => conn.execute(
            "UPDATE reminders SET attempts = attempts + 1, status = 'failed', failure_reason = ?2,
                next_attempt_at = NULL, claimed_until = NULL WHERE id = ?1 AND claimed_until = ?3",
            params![id, reason, claim],
        )?,
    };
    Ok(())
}

/// A repeat that no channel took: no retries for repeats, the next one stays planned.
pub fn repeat_failed(
    conn: &Connection,
    id: i64,
    claim: &str,
    next_repeat: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE reminders SET repeats_sent = repeats_sent + 1, claimed_until = NULL,
            next_attempt_at = CASE WHEN answered_at IS NULL THEN ?2 END
         WHERE id = ?1 AND claimed_until = ?3",
        params![id, next_repeat, claim],
    )?;
    Ok(())
}

/// The claim of a reminder whose round waits for its e-mail: the e-mail queue holds it
/// until the mail is accepted or given up. It sorts after every instant, so it never lapses.
pub const HELD_BY_MAIL: &str = "mail";

/// At start, with the data directory locked so that no other dispatcher runs: the claims a
/// stopped or killed server held are released, and its reminders go out at once instead
/// of when the claims would lapse.
pub fn release_claims(conn: &Connection) -> rusqlite::Result<usize> {
    conn.execute(
        "UPDATE reminders SET claimed_until = NULL WHERE claimed_until IS NOT NULL AND claimed_until <> ?1",
        [HELD_BY_MAIL],
    )
}

/// No push delivered the round and its e-mail is queued: the queue holds the reminder.
pub fn hold_for_mail(conn: &Connection, id: i64, claim: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE reminders SET claimed_until = ?3, next_attempt_at = NULL WHERE id = ?1 AND claimed_until = ?2",
    )?
    .execute(params![id, claim, HELD_BY_MAIL])?;
    Ok(())
}

/// The e-mail that decides round `round` was accepted: sent, with the next repeat (if any).
pub fn mail_delivered(
    conn: &Connection,
    id: i64,
    round: i64,
    now: Stamp,
    next_repeat: Option<&str>,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE reminders SET status = 'sent', sent_at = coalesce(sent_at, ?2), attempts = 0,
            failure_reason = NULL, claimed_until = NULL, repeats_sent = max(repeats_sent, ?3),
            next_attempt_at = CASE WHEN answered_at IS NULL THEN ?4 END
         WHERE id = ?1 AND claimed_until = ?5 AND status IN ('scheduled', 'sent')",
    )?
    .execute(params![id, now, round, next_repeat, HELD_BY_MAIL])?;
    Ok(())
}

/// An attempt of the deciding e-mail failed and another follows: the reason shows meanwhile.
pub fn mail_retrying(conn: &Connection, id: i64, reason: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE reminders SET failure_reason = ?2 WHERE id = ?1 AND claimed_until = ?3 AND status = 'scheduled'",
    )?
    .execute(params![id, reason, HELD_BY_MAIL])?;
    Ok(())
}

/// The deciding e-mail was given up: a first sending fails with `reason`; a repeat counts
/// as made and the next one (if any) stays planned.
pub fn mail_failed(
    conn: &Connection,
    id: i64,
    round: i64,
    reason: &str,
    next_repeat: Option<&str>,
) -> rusqlite::Result<()> {
    if round == 0 {
        conn.prepare_cached(
            "UPDATE reminders SET status = 'failed', failure_reason = ?2, attempts = attempts + 1,
                next_attempt_at = NULL, claimed_until = NULL
             WHERE id = ?1 AND claimed_until = ?3 AND status = 'scheduled'",
        )?
        .execute(params![id, reason, HELD_BY_MAIL])?;
    } else {
        conn.prepare_cached(
            "UPDATE reminders SET repeats_sent = max(repeats_sent, ?2), claimed_until = NULL,
                next_attempt_at = CASE WHEN answered_at IS NULL THEN ?3 END
             WHERE id = ?1 AND claimed_until = ?4",
        )?
        .execute(params![id, round, next_repeat, HELD_BY_MAIL])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database() -> Connection {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        crate::db::migrations::migrate(&mut conn, dir.path()).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (1, 'a@b.c', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
             INSERT INTO medications (id, user_id, name, unit, frequency, color, icon, default_quantity, start_date,
                                      created_at, updated_at)
                  VALUES (1, 1, 'Aspirin', 'tablets', 'twice_daily', 'blue', 'pill', 1000, '2026-01-01', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
             INSERT INTO dose_history_rows (id, user_id, medication_id, medication_name, medication_unit, status, taken_at,
                                       quantity, dosage_unit, affect_inventory, created_at)
                  VALUES (7, 1, 1, 'Aspirin', 'tablets', 'taken', '2026-01-01T00:00:00.000Z', 1000, 'tablets', 0, '2026-01-01T00:00:00.000Z');",
        )
        .unwrap();
        conn
    }

    fn add(conn: &Connection, kind: &str, scheduled: &str, reminder: &str) -> i64 {
        conn.execute(
            "INSERT INTO reminders (user_id, medication_id, medication_name, kind, scheduled_time, reminder_time,
                                    next_attempt_at, created_at)
             VALUES (1, 1, 'Aspirin', ?1, ?2, ?3, ?3, '2026-01-01T00:00:00.000Z')",
            params![kind, scheduled, reminder],
        )
        .unwrap();
        conn.last_insert_rowid()
    }

    fn answered(conn: &Connection, id: i64) -> bool {
        conn.query_row(
            "SELECT answered_at IS NOT NULL FROM reminders WHERE id = ?1",
            [id],
            |r| r.get(0),
        )
        .unwrap()
    }

    #[test]
    fn a_late_log_answers_the_overdue_dose_not_the_next_one() {
        let conn = database();
        let morning = add(
            &conn,
            "dose",
            "2026-03-02T09:00:00.000Z",
            "2026-03-02T08:45:00.000Z",
        );
        let evening = add(
            &conn,
            "dose",
            "2026-03-02T21:00:00.000Z",
            "2026-03-02T20:45:00.000Z",
        );
        // The morning dose, logged at 20:30: the evening reminder has not come due yet.
        let got = answer(&conn, 1, 1, None, Stamp::at("2026-03-02T20:30:00.000Z"), 7).unwrap();
        assert_eq!(got, Some(morning));
        assert!(!answered(&conn, evening));
    }

    #[test]
    fn an_early_log_silences_the_coming_reminder_and_its_one_off_twin() {
        let conn = database();
        let planned = add(
            &conn,
            "dose",
            "2026-03-02T09:00:00.000Z",
            "2026-03-02T08:45:00.000Z",
        );
        let twin = add(
            &conn,
            "one_off",
            "2026-03-02T09:00:00.000Z",
            "2026-03-02T08:50:00.000Z",
        );
        let later = add(
            &conn,
            "dose",
            "2026-03-02T21:00:00.000Z",
            "2026-03-02T20:45:00.000Z",
        );
        let got = answer(&conn, 1, 1, None, Stamp::at("2026-03-02T08:30:00.000Z"), 7).unwrap();
        assert_eq!(got, Some(planned));
        assert!(answered(&conn, twin));
        assert!(!answered(&conn, later));
        // Nothing due or coming within the hour: nothing is answered.
        assert_eq!(
            answer(&conn, 1, 1, None, Stamp::at("2026-03-02T15:00:00.000Z"), 7).unwrap(),
            None
        );
    }

    #[test]
    fn a_dose_is_overdue_after_its_grace_or_snooze_never_as_needed_or_cancelled() {
        let conn = database();
        conn.execute_batch(
            "INSERT INTO medications (id, user_id, name, unit, frequency, color, icon, default_quantity, start_date,
                                      created_at, updated_at, schedule_rules)
                  VALUES (2, 1, 'Slow', 'tablets', 'daily', 'blue', 'pill', 1000, '2026-01-01', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z',
                          '{\"grace_minutes\":120}'),
                         (3, 1, 'Rescue', 'tablets', 'as_needed', 'blue', 'pill', 1000, '2026-01-01', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{}');",
        )
        .unwrap();
        let add_for = |medication: i64, scheduled: &str| {
            conn.execute(
                "INSERT INTO reminders (user_id, medication_id, medication_name, scheduled_time, reminder_time,
                                        next_attempt_at, created_at)
                 VALUES (1, ?1, 'x', ?2, ?2, ?2, '2026-01-01T00:00:00.000Z')",
                params![medication, scheduled],
            )
            .unwrap();
            conn.last_insert_rowid()
        };
        let usual = add_for(1, "2026-03-02T08:00:00.000Z");
        let slow = add_for(2, "2026-03-02T08:00:00.000Z");
        add_for(3, "2026-03-02T08:00:00.000Z");
        let cancelled = add_for(1, "2026-03-02T07:00:00.000Z");
        conn.execute(
            "UPDATE reminders SET status = 'cancelled' WHERE id = ?1",
            [cancelled],
        )
        .unwrap();
        let ids = |now: Stamp| -> Vec<i64> {
            overdue(&conn, "2026-03-01T00:00:00.000Z", now, 60, 10)
                .unwrap()
                .iter()
                .map(|o| o.id)
                .collect()
        };
        assert!(ids(Stamp::at("2026-03-02T08:59:00.000Z")).is_empty());
        assert_eq!(ids(Stamp::at("2026-03-02T09:00:00.000Z")), vec![usual]);
        assert_eq!(ids(Stamp::at("2026-03-02T10:00:00.000Z")), vec![usual, slow]);
        // Snoozed to 08:50: its grace counts from then.
        assert!(
            snooze(
                &conn,
                usual,
                "2026-03-02T08:50:00.000Z",
                Stamp::at("2026-03-02T08:40:00.000Z")
            )
            .unwrap()
        );
        assert!(ids(Stamp::at("2026-03-02T09:30:00.000Z")).is_empty());
        assert_eq!(ids(Stamp::at("2026-03-02T09:50:00.000Z")), vec![usual]);
    }

    #[test]
    fn a_restart_releases_the_dispatchers_claims_but_not_the_mail_queues() {
        let conn = database();
        let sent = add(
            &conn,
            "dose",
            "2026-03-02T09:00:00.000Z",
            "2026-03-02T08:45:00.000Z",
        );
        let waiting = add(
            &conn,
            "dose",
            "2026-03-02T10:00:00.000Z",
            "2026-03-02T08:45:00.000Z",
        );
        let claim = new_claim("2026-03-02T09:10:00.000Z");
        assert_eq!(
            claim_due(&conn, Stamp::at("2026-03-02T09:00:00.000Z"), &claim, 10).unwrap(),
            vec![sent, waiting]
        );
        hold_for_mail(&conn, waiting, &claim).unwrap();
        assert_eq!(release_claims(&conn).unwrap(), 1);
        // Claimable again at once, long before the claim would have lapsed; the reminder
        // waiting for its e-mail stays with the queue.
        assert_eq!(
            claim_due(&conn, Stamp::at("2026-03-02T09:00:01.000Z"), &new_claim("x"), 10).unwrap(),
            vec![sent]
        );
        mail_delivered(&conn, waiting, 0, Stamp::at("2026-03-02T09:01:00.000Z"), None).unwrap();
        assert_eq!(
            find(&conn, 1, waiting).unwrap().unwrap().status,
            ReminderStatus::Sent
        );
    }

    #[test]
    fn only_the_claim_holder_can_finish_a_reminder() {
        let conn = database();
        let id = add(
            &conn,
            "dose",
            "2026-03-02T09:00:00.000Z",
            "2026-03-02T08:45:00.000Z",
        );
        let mine = new_claim("2026-03-02T09:10:00.000Z");
        assert_eq!(
            claim_due(&conn, Stamp::at("2026-03-02T09:00:00.000Z"), &mine, 10).unwrap(),
            vec![id]
        );
        // While held, nobody else claims it; once lapsed, another dispatcher may.
        assert!(
            claim_due(&conn, Stamp::at("2026-03-02T09:05:00.000Z"), &new_claim("x"), 10)
                .unwrap()
                .is_empty()
        );
        let theirs = new_claim("2026-03-02T09:30:00.000Z");
        assert_eq!(
            claim_due(&conn, Stamp::at("2026-03-02T09:11:00.000Z"), &theirs, 10).unwrap(),
            vec![id]
        );
        // The first dispatcher's late result changes nothing.
        delivered(
            &conn,
            id,
            &mine,
            Stamp::at("2026-03-02T09:12:00.000Z"),
            false,
            None,
        )
        .unwrap();
        assert_eq!(
            find(&conn, 1, id).unwrap().unwrap().status,
            ReminderStatus::Scheduled
        );
        delivered(
            &conn,
            id,
            &theirs,
            Stamp::at("2026-03-02T09:12:00.000Z"),
            false,
            None,
        )
        .unwrap();
        assert_eq!(find(&conn, 1, id).unwrap().unwrap().status, ReminderStatus::Sent);
    }
}

/// A reminder as Home Assistant's event entity tells of it.
#[derive(Debug, Clone)]
pub struct DueReminder {
    pub medication_id: i64,
    pub scheduled_time: Stamp,
    /// When its time came (see `came_due`).
    pub due_at: Stamp,
}

/// Dose reminders (planned and one-off) whose time came after `after` and by `until`, not
/// cancelled and not answered yet, by time: whether a channel took them or not, their
/// time has come. A reminder's time is its reminder time (a snooze moves it), or when it was
/// made if that is later (a dose added minutes before it is due is reminded of at once).
pub fn came_due(
    conn: &Connection,
    after: Stamp,
    until: Stamp,
    limit: i64,
) -> rusqlite::Result<Vec<DueReminder>> {
    conn.prepare_cached(
        "SELECT id, medication_id, scheduled_time, due_at FROM (
             SELECT id, medication_id, scheduled_time, max(reminder_time, created_at) AS due_at
             FROM reminders
             WHERE medication_id IS NOT NULL AND kind IN ('dose', 'one_off') AND status <> 'cancelled'
               AND answered_at IS NULL AND reminder_time <= ?2)
         WHERE due_at > ?1 AND due_at <= ?2
         ORDER BY due_at, id LIMIT ?3",
    )?
    .query_map(params![after, until, limit], |row| {
        let id = row.get(0)?;
        Ok(DueReminder {
            medication_id: row.get(1)?,
            scheduled_time: stamp_at(row, 2, "reminders", id)?,
            due_at: stamp_at(row, 3, "reminders", id)?,
        })
    })?
    .collect()
}

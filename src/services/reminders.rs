//! Reminders a person manages (SPEC §7): the list, one-off reminders, changing and
//! cancelling them, claiming one to send now, planning a medication's reminders ahead, the
//! delivery history, and the public take links that answer a reminder.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::access::{self, Access, Role};
use super::doses::{self, NewDose, Recorded};
use super::error::{ErrorCode, ServiceError, ServiceResult, conflict, invalid, not_found};
use super::{stock, user_settings};
use crate::clock;
use crate::config;
use crate::db::Stamp;
use crate::domain::dose::DoseStatus;
use crate::domain::medication::MedicationId;
use crate::domain::notification::{ReminderStatus, check_lead, check_message};
use crate::domain::quantity::Quantity;
use crate::security::codes;
use crate::services::planner::{self, UserClock};
use crate::store::deliveries::{self, Delivery};
use crate::store::medications::{self, Medication};
use crate::store::reminders::{self, Reminder, TakeTarget};
use crate::store::{history, notify_prefs, people};

/// The most rows one page of a list may have.
pub const MAX_LIMIT: i64 = 200;
const DEFAULT_LIMIT: i64 = 50;
/// How long a "send now" holds its reminder before a dispatcher may take it over.
const SEND_CLAIM_MINUTES: i64 = 10;

/// One page of a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Paging {
    pub limit: i64,
    pub offset: i64,
}

/// A page of `limit` rows (default 50, at most 200) from `offset` (default 0).
pub fn paging(limit: Option<i64>, offset: Option<i64>) -> ServiceResult<Paging> {
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    let offset = offset.unwrap_or(0);
    if !(1..=MAX_LIMIT).contains(&limit) || offset < 0 {
        return Err(invalid(format!(
            "limit must be between 1 and {MAX_LIMIT}, offset 0 or more"
        )));
    }
    Ok(Paging { limit, offset })
}

fn checked_lead(minutes: Option<i64>) -> ServiceResult<Option<i64>> {
    Ok(minutes.map(check_lead).transpose()?)
}

fn checked_message(message: Option<&str>) -> ServiceResult<Option<String>> {
    Ok(check_message(message)?)
}

fn notification_not_found() -> ServiceError {
    not_found(ErrorCode::NotificationNotFound, "Notification not found")
}

fn medication_not_found() -> ServiceError {
    not_found(ErrorCode::MedicationNotFound, "Medication not found")
}

fn being_sent() -> ServiceError {
    conflict(
        ErrorCode::NotificationSending,
        "This notification is being sent right now",
    )
}

/// The person's reminders, soonest first, with how many there are in all.
pub fn list(
    conn: &Connection,
    user_id: i64,
    status: Option<ReminderStatus>,
    page: Paging,
) -> ServiceResult<(Vec<Reminder>, i64)> {
    Ok(reminders::page(conn, user_id, status, page.limit, page.offset)?)
}

/// A one-off reminder someone asks for.
pub struct NewReminder {
    pub medication_id: i64,
    /// The dose's time.
    pub scheduled: DateTime<Utc>,
    /// Minutes before the dose; None follows the medication's preferences.
    pub lead_minutes: Option<i64>,
    pub message: Option<String>,
}

/// Sets a one-off reminder for a dose: the dose is at most a minute past and within a
/// year; the reminder goes out its lead before the dose, or now if that has passed.
pub fn create(
    conn: &mut Connection,
    user_id: i64,
    new: NewReminder,
    now: DateTime<Utc>,
) -> ServiceResult<Reminder> {
    if new.scheduled < now - Duration::minutes(1) {
        return Err(invalid("Scheduled time must not be in the past"));
    }
    if new.scheduled > now + Duration::days(366) {
        return Err(invalid("Scheduled time must be within a year"));
    }
    let lead_minutes = checked_lead(new.lead_minutes)?;
    let message = checked_message(new.message.as_deref())?;
    let tx = conn.transaction()?;
    let m = medications::find(&tx, user_id, new.medication_id)?.ok_or_else(medication_not_found)?;
    let lead_minutes = match lead_minutes {
        Some(l) => l,
        None => {
            let global = notify_prefs::global(&tx, user_id)?;
            let own = notify_prefs::for_medication(&tx, m.id)?;
            notify_prefs::effective(&global, own.as_ref()).lead_minutes
        }
    };
    let reminder = (new.scheduled - Duration::minutes(lead_minutes)).max(now);
    let id = reminders::insert_one_off(
        &tx,
        user_id,
        &reminders::OneOff {
            medication_id: m.id,
            medication_name: &m.name,
            scheduled: &clock::stamp(new.scheduled),
            reminder: &clock::stamp(reminder),
            message: message.as_deref(),
        },
        Stamp::from(now),
    )?
    .ok_or_else(|| {
        conflict(
            ErrorCode::ReminderExists,
            "This medication already has a reminder at that time",
        )
    })?;
    let row = reminders::find(&tx, user_id, id)?.ok_or_else(notification_not_found)?;
    tx.commit()?;
    Ok(row)
}

/// Changes a scheduled reminder's message (its time follows the schedule and the lead; a
/// one-off reminder is cancelled and set again).
pub fn set_message(
    conn: &mut Connection,
    user_id: i64,
    id: i64,
    message: Option<&str>,
) -> ServiceResult<Reminder> {
    let message = checked_message(message)?;
    let tx = conn.transaction()?;
    let current = reminders::find(&tx, user_id, id)?.ok_or_else(notification_not_found)?;
    if current.status != ReminderStatus::Scheduled {
        return Err(conflict(
            ErrorCode::NotificationNotScheduled,
            "Only a scheduled notification can be changed",
        ));
    }
    reminders::set_message(&tx, user_id, id, message.as_deref())?;
    let row = reminders::find(&tx, user_id, id)?.ok_or_else(notification_not_found)?;
    tx.commit()?;
    Ok(row)
}

/// Cancels a scheduled reminder; sent, failed or cancelled ones stay as they are, and one
/// a dispatcher is sending cannot be cancelled.
pub fn cancel(conn: &Connection, user_id: i64, id: i64, now: DateTime<Utc>) -> ServiceResult<()> {
    let current = reminders::find(conn, user_id, id)?.ok_or_else(notification_not_found)?;
    if current.status != ReminderStatus::Scheduled {
        return Err(conflict(
            ErrorCode::NotificationNotScheduled,
            "Only a scheduled notification can be cancelled",
        ));
    }
    if !reminders::cancel(conn, user_id, id, Stamp::from(now))? {
        return Err(being_sent());
    }
    Ok(())
}

/// Claims a scheduled reminder for sending it now; answers the claim the sender must hold.
pub fn claim_for_sending(
    conn: &Connection,
    user_id: i64,
    id: i64,
    now: DateTime<Utc>,
) -> ServiceResult<String> {
    let current = reminders::find(conn, user_id, id)?.ok_or_else(notification_not_found)?;
    if current.status != ReminderStatus::Scheduled {
        return Err(conflict(
            ErrorCode::NotificationNotScheduled,
            "Only a scheduled notification can be sent",
        ));
    }
    let claim = reminders::new_claim(&clock::stamp(now + Duration::minutes(SEND_CLAIM_MINUTES)));
    if !reminders::claim_now(conn, user_id, id, Stamp::from(now), &claim)? {
        return Err(being_sent());
    }
    Ok(claim)
}

/// Why a claimed reminder went out on no channel (the dispatcher found nothing to send).
pub fn not_sent(conn: &Connection, user_id: i64, id: i64) -> ServiceResult<ServiceError> {
    let reason = reminders::find(conn, user_id, id)?
        .and_then(|r| r.failure_reason)
        .unwrap_or_else(|| "nothing to send".into());
    Ok(conflict(
        ErrorCode::NotificationNotSent,
        format!("The notification was not sent: {reason}"),
    ))
}

/// Plans a medication's reminders for the next `days` days (default 7); answers how many
/// were added.
pub fn plan_ahead(
    conn: &mut Connection,
    user_id: i64,
    medication_id: i64,
    days: Option<u32>,
    now: DateTime<Utc>,
) -> ServiceResult<usize> {
    let days = days.unwrap_or(config::HORIZON_DAYS);
    if !(1..=config::MAX_DAYS_AHEAD).contains(&days) {
        return Err(invalid(format!(
            "days_ahead must be between 1 and {}",
            config::MAX_DAYS_AHEAD
        )));
    }
    let tx = conn.transaction()?;
    let clock = UserClock::at(&tx, user_id, now)?;
    let m = medications::find(&tx, user_id, medication_id)?.ok_or_else(medication_not_found)?;
    let added = planner::plan_medication(&tx, user_id, &m, &clock, days)?;
    tx.commit()?;
    Ok(added)
}

/// Checks a history window before it is read: the start not after the end.
pub fn check_window(start: Option<NaiveDate>, end: Option<NaiveDate>) -> ServiceResult<()> {
    match (start, end) {
        (Some(s), Some(e)) if s > e => Err(invalid("start_date must not be after end_date")),
        _ => Ok(()),
    }
}

/// A page of the delivery history, newest first, for the days from `start` to `end`
/// (inclusive, in the person's zone).
pub fn delivery_history(
    conn: &Connection,
    user_id: i64,
    start: Option<NaiveDate>,
    end: Option<NaiveDate>,
    page: Paging,
    now: DateTime<Utc>,
) -> ServiceResult<(Vec<Delivery>, i64)> {
    check_window(start, end)?;
    let clock = UserClock::at(conn, user_id, now)?;
    let from = start.map(|d| clock::stamp(clock.start_of(d)));
    let until = end
        .and_then(|d| d.succ_opt())
        .map(|d| clock::stamp(clock.start_of(d)));
    Ok(deliveries::page(
        conn,
        user_id,
        from.as_deref(),
        until.as_deref(),
        page.limit,
        page.offset,
    )?)
}

// --- Take links ------------------------------------------------------------------------------

fn invalid_token() -> ServiceError {
    not_found(ErrorCode::InvalidToken, "Invalid or expired token")
}

/// A token can only be one the server minted: short, URL-safe letters. Anything else is
/// refused before it reaches the database.
fn plausible_token(token: &str) -> bool {
    token.len() <= 128
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Refuses a token the server cannot have minted.
pub fn check_token(token: &str) -> ServiceResult<()> {
    if plausible_token(token) {
        Ok(())
    } else {
        Err(invalid_token())
    }
}

/// What a live take link points at: the reminder, its medication and its owner.
struct TakeLink {
    pub target: TakeTarget,
    pub medication: Medication,
    pub user_id: i64,
    /// What the link's recipient (the account holder, or the carer it was sent to) may do.
    pub access: Access,
}

/// The reminder a live take link belongs to; `invalid_token` for anything else, and for a
/// carer's link once that carer may no longer record the person's doses.
fn take_link(conn: &Connection, token: &str, now: DateTime<Utc>) -> ServiceResult<TakeLink> {
    check_token(token)?;
    let target = reminders::by_take_token(conn, &codes::hash_link_token(token), Stamp::from(now))?
        .ok_or_else(invalid_token)?;
    let user_id = target.user_id;
    let medication = target
        .reminder
        .medication_id
        .map(|m| medications::find(conn, user_id, m))
        .transpose()?
        .flatten()
        .ok_or_else(invalid_token)?;
    // Asked now, not when the link was sent: a carer whose access ended has no link.
    let recipient = target.recipient.unwrap_or(user_id);
    let access = match access::medication(conn, recipient, MedicationId(medication.id)) {
        Ok(access) if access.role >= Role::Record => access,
        Ok(_) | Err(ServiceError::NotFound(_)) => return Err(invalid_token()),
        Err(other) => return Err(other),
    };
    Ok(TakeLink {
        target,
        medication,
        user_id,
        access,
    })
}

/// Logs the dose a live take link asks about, once: the medication's usual amount, now,
/// answering the link's reminder, logged by the link's recipient. A dose recorded missed
/// (the engine's grace pass) that is then taken or skipped through a link is corrected, not
/// logged twice: the missed entry gives way to the new one.
pub fn log_take(
    conn: &mut Connection,
    token: &str,
    status: DoseStatus,
    now: DateTime<Utc>,
) -> ServiceResult<Recorded> {
    let tx = conn.transaction()?;
    let TakeLink {
        target,
        medication: m,
        user_id,
        access,
    } = take_link(&tx, token, now)?;
    if target.reminder.answered_at.is_some() {
        let missed = match target.history_id {
            Some(entry) => history::find(&tx, user_id, entry)?.filter(|e| e.status == DoseStatus::Missed),
            None => None,
        };
        match missed {
            // Replaced, not deleted: the audit lists the dose logged, not a deletion.
            Some(mut entry) if status != DoseStatus::Missed => {
                stock::release(&tx, user_id, &mut entry, now)?;
                history::delete(&tx, user_id, entry.id)?;
            }
            _ => {
                return Err(conflict(
                    ErrorCode::DoseAlreadyLogged,
                    "This dose was already logged",
                ));
            }
        }
    }
    let recorded = doses::record_dose(
        &tx,
        user_id,
        &m,
        NewDose {
            status,
            taken: now,
            quantity: planner::dose_quantity(
                &tx,
                user_id,
                &m,
                target.reminder.scheduled_time.instant(),
                now,
            )?,
            dosage_unit: m.unit.clone(),
            dosage: None,
            dosage_id: Some(target.reminder.id),
            answer_nearest: false,
            affect_inventory: true,
            // The link's recipient: the account holder, or the carer it was sent to.
            logged_by: Some(doses::logger(&tx, access.user_id)?),
        },
        now,
    )?;
    access::audit(&tx, &access, "dose.logged", &m.name, now)?;
    tx.commit()?;
    Ok(recorded)
}

/// The snoozes a person can choose, in minutes.
pub const SNOOZE_MINUTES: [i64; 3] = [10, 30, 60];

/// A snoozed reminder: when it goes out again.
#[derive(Debug, Serialize, ToSchema)]
pub struct Snoozed {
    /// RFC 3339, UTC.
    #[schema(value_type = String)]
    pub snoozed_until: Stamp,
}

/// Snoozes the reminder of a live take link by `minutes` (10, 30 or 60): it is scheduled
/// again then, as a reminder the Scheduled list shows, its follow-ups stop, and the devices
/// showing it get a withdrawal. Answers when, and that time as HH:MM in the person's zone.
pub fn snooze(
    conn: &mut Connection,
    token: &str,
    minutes: Option<i64>,
    now: DateTime<Utc>,
) -> ServiceResult<(Snoozed, String)> {
    let minutes = minutes.filter(|m| SNOOZE_MINUTES.contains(m)).ok_or_else(|| {
        super::error::rejected(
            ErrorCode::InvalidSnoozeMinutes,
            "minutes must be 10, 30 or 60 to snooze a reminder",
        )
    })?;
    let tx = conn.transaction()?;
    let TakeLink {
        target,
        user_id,
        access,
        ..
    } = take_link(&tx, token, now)?;
    // A carer's alert asks them to give or skip the dose; moving the person's own reminder
    // is the account holder's.
    if !access.is_owner() {
        return Err(ServiceError::Forbidden(super::Problem::new(
            ErrorCode::NotPermitted,
            "Only the account holder can snooze this reminder",
        )));
    }
    let until = now + Duration::minutes(minutes);
    if target.reminder.answered_at.is_some()
        || !reminders::snooze(&tx, target.reminder.id, &clock::stamp(until), Stamp::from(now))?
    {
        return Err(conflict(
            ErrorCode::DoseAlreadyLogged,
            "This dose was already logged",
        ));
    }
    let tz = UserClock::at(&tx, user_id, now)?.tz;
    tx.commit()?;
    Ok((
        Snoozed {
            snoozed_until: Stamp::from(until),
        },
        until.with_timezone(&tz).format("%H:%M").to_string(),
    ))
}

/// How a take link's reminder was answered already.
#[derive(Debug, Serialize, ToSchema)]
pub struct TakeLogged {
    /// taken, skipped or missed; null when the history entry is gone.
    #[schema(value_type = Option<DoseStatus>)]
    pub status: Option<String>,
    /// When the dose was logged (RFC 3339, UTC).
    #[schema(value_type = String)]
    pub taken: Stamp,
}

/// What a take link shows before the dose is logged (SPEC §3 "Token notification details").
#[derive(Debug, Serialize, ToSchema)]
pub struct TakeDetails {
    pub title: String,
    /// Whose dose it is: the medication's person (the account holder's name for their own).
    pub person_name: String,
    pub medication_name: String,
    #[schema(value_type = f64)]
    pub quantity: Quantity,
    /// Always null (kept for the spec's shape).
    #[schema(value_type = Option<String>)]
    pub dosage: Option<()>,
    pub dosage_unit: String,
    #[schema(value_type = String)]
    pub scheduled_time: Stamp,
    pub message: Option<String>,
    /// Null until the dose is logged.
    pub logged: Option<TakeLogged>,
    /// When a snoozed reminder goes out again (RFC 3339, UTC); null unless it is snoozed
    /// and has not gone out again yet.
    #[schema(required = true, value_type = Option<String>)]
    pub snoozed_until: Option<Stamp>,
    /// Who handled the dose (logged it taken or skipped), by name, as every link for the dose
    /// shows it: the account holder or a carer. Null until then, for a dose the engine
    /// recorded missed, and for entries from before carers.
    #[schema(required = true)]
    pub handled_by: Option<String>,
    /// When the handled dose was logged as taken or skipped (RFC 3339, UTC); null with
    /// `handled_by`.
    #[schema(required = true, value_type = Option<String>)]
    pub handled_at: Option<Stamp>,
    /// The language the link's reminder is written in, its recipient's (`en`, `es`, `fr`,
    /// `de`): the page speaks it to a browser that is not signed in.
    pub language: String,
}

/// The details a take link shows, for a live token.
pub fn take_details(conn: &Connection, token: &str, now: DateTime<Utc>) -> ServiceResult<TakeDetails> {
    let TakeLink {
        target,
        medication: m,
        user_id,
        access,
    } = take_link(conn, token, now)?;
    let r = &target.reminder;
    let logged = match (&r.answered_at, target.history_id) {
        (None, _) => None,
        (Some(at), Some(entry)) => Some(match history::find(conn, user_id, entry)? {
            // As text whether the entry's status is stored typed or not.
            Some(e) => TakeLogged {
                status: Some(e.status.to_string()),
                taken: e.taken,
            },
            None => TakeLogged {
                status: None,
                taken: *at,
            },
        }),
        (Some(at), None) => Some(TakeLogged {
            status: None,
            taken: *at,
        }),
    };
    let handled_at = logged
        .as_ref()
        .filter(|l| l.status.as_deref() != Some("missed"))
        .map(|l| l.taken);
    let handled_by = target.handled_by.clone().filter(|_| handled_at.is_some());
    let global = notify_prefs::global(conn, user_id)?;
    let own = notify_prefs::for_medication(conn, m.id)?;
    let message = r
        .message
        .clone()
        .or(notify_prefs::effective(&global, own.as_ref()).custom_message);
    let person_name = people::name(conn, m.person_id)?.unwrap_or_default();
    Ok(TakeDetails {
        title: r.title.clone(),
        person_name,
        quantity: planner::dose_quantity(conn, user_id, &m, r.scheduled_time.instant(), now)?,
        medication_name: m.name,
        dosage: None,
        dosage_unit: m.unit,
        scheduled_time: r.scheduled_time,
        message,
        logged,
        snoozed_until: target.snoozed_until,
        handled_at: handled_by.as_ref().and(handled_at),
        handled_by,
        language: user_settings::language(conn, access.user_id)?.code().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_bounded() {
        assert_eq!(paging(None, None).unwrap(), Paging { limit: 50, offset: 0 });
        assert!(paging(Some(0), None).is_err());
        assert!(paging(Some(MAX_LIMIT + 1), None).is_err());
        assert!(paging(None, Some(-1)).is_err());
    }

    #[test]
    fn only_minted_looking_tokens_are_plausible() {
        assert!(plausible_token("abc-DEF_123"));
        assert!(!plausible_token("a/b"));
        assert!(!plausible_token(&"a".repeat(129)));
    }
}

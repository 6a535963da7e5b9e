//! A reminder's delivery rounds, the synchronous half of the dispatcher (DESIGN §4): claiming
//! due reminders and planning each round (its take link minted, its e-mail and channel
//! messages queued, its pushes noted as starting), recording what a round's pushes came to
//! (the delivery history, the fallback e-mail, the reminder's next state), recording overdue
//! doses as missed, and the engine's housekeeping. Every function here that changes more
//! than one row opens and commits its own transaction; the engine (`reminders::dispatcher`)
//! only sends and calls these between its sends.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use serde_json::json;

use super::messages::{self, Content, Formats, Message, Priority};
use super::planner;
use super::prescriptions::RefillReason;
use super::stock_notices;
use crate::clock;
use crate::config::Settings;
use crate::db::{DbError, Stamp};
use crate::domain::notification::{ReminderKind, ReminderStatus, next_try};
use crate::domain::schedule;
use crate::mailer::Mailer;
use crate::security::codes;
use crate::store::channels::{self as channel_store, Channel, NewSend};
use crate::store::deliveries::{self, NewDelivery};
use crate::store::notify_prefs::{self, GlobalPrefs, Method};
use crate::store::outbox::{self, MailKind, MailState, NewMail, ReminderRound};
use crate::store::push_subscriptions::{self, Subscription};
use crate::store::reminders::{self, Job, Withdrawal};
use crate::store::{medications, people, settings, users};

/// A claim outlives any sending (push timeouts included). A server that stops holding
/// claims releases them at its next start (`release_claims`).
const CLAIM_MINUTES: i64 = 10;
/// Take links work until this long after the dose time (a carer's, after the alert).
pub const TAKE_LINK_HOURS: i64 = 24;
/// The outcome a carer's devices and channels are told when their alert no longer holds:
/// the clock was set back to before the dose was late.
pub const CLOCK_CORRECTED: &str = "corrected";
/// Mails done (accepted or given up) are forgotten after this long.
const KEEP_DONE_MAILS_DAYS: i64 = 7;
/// Doses whose grace ended longer ago than this are not recorded as missed any more: a
/// server that was off for days does not fill the history at its start, and the check
/// reads a bounded range.
const MISSED_LOOKBACK_HOURS: i64 = 24;
/// Overdue doses recorded per transaction.
pub const MISSED_BATCH: i64 = 200;

/// A medication's follow-ups: every so many minutes, at most so many times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Followups {
    pub every_minutes: i64,
    pub times: i64,
}

/// The follow-ups in force: the medication's own (`repeat_every_minutes`, `repeat_times`
/// in its schedule), else the person's.
pub fn followups(prefs: &GlobalPrefs, rules: Option<&crate::domain::schedule::Rules>) -> Followups {
    Followups {
        every_minutes: rules
            .and_then(|r| r.repeat_every_minutes)
            .map_or(prefs.repeat_interval_minutes, i64::from),
        times: rules
            .and_then(|r| r.repeat_times)
            .map_or(prefs.repeat_max, i64::from),
    }
}

/// Who a notification goes to and how they read times.
#[derive(Debug, Clone)]
pub struct Recipient {
    pub user_id: i64,
    pub email: String,
    pub formats: Formats,
    pub prefs: GlobalPrefs,
    pub subscriptions: Vec<Subscription>,
    /// E-mail goes only to a verified address.
    pub email_verified: bool,
    /// The person's channels (ntfy, Gotify, Telegram, webhooks).
    pub channels: Vec<Channel>,
}

/// One channel's outcome of one delivery round.
#[derive(Debug, Clone)]
pub struct ChannelReport {
    pub channel: Method,
    /// What happened, as a code the app translates with `params` (`push_sent`,
    /// `push_no_device`, `email_queued`, `fallback_skipped`, …); `detail` says it in English.
    pub code: &'static str,
    pub params: serde_json::Value,
    /// `None` when delivered (or, for e-mail, queued).
    pub error: Option<String>,
    pub detail: String,
    pub fallback: bool,
    /// The channel could not even be tried (no device subscribed, e-mail not configured,
    /// the method switched off): the person's set-up, not a failing service.
    pub unavailable: bool,
    /// The e-mail is in the queue: its outcome goes into the history when the mail server
    /// has answered.
    pub queued: bool,
    pub delivered_to: Vec<i64>,
    pub gone: Vec<i64>,
}

impl ChannelReport {
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }

    pub fn new(channel: Method, code: &'static str, params: serde_json::Value) -> ChannelReport {
        ChannelReport {
            channel,
            code,
            params,
            error: None,
            detail: String::new(),
            fallback: false,
            unavailable: false,
            queued: false,
            delivered_to: Vec::new(),
            gone: Vec::new(),
        }
    }

    pub fn failed(channel: Method, code: &'static str, error: String, unavailable: bool) -> ChannelReport {
        ChannelReport {
            detail: error.clone(),
            params: json!({ "detail": &error }),
            error: Some(error),
            unavailable,
            ..ChannelReport::new(channel, code, serde_json::Value::Null)
        }
    }
}

/// Why e-mail does not take over a reminder whose push no device took, or `None` when it
/// does. The one rule for real reminders and test notifications alike.
pub fn fallback_refused(
    recipient: &Recipient,
    channels: &[Method],
    email_available: bool,
) -> Option<&'static str> {
    if channels.contains(&Method::Email) {
        // It went by e-mail anyway.
        Some("email_chosen")
    } else if !recipient.prefs.email_enabled {
        Some("email_off")
    } else if !recipient.prefs.email_fallback {
        Some("fallback_off")
    } else if !email_available {
        Some("email_unavailable")
    } else if !recipient.email_verified {
        Some("email_unverified")
    } else {
        None
    }
}

/// The English words of a refused fallback's reason.
fn fallback_refusal_text(reason: &str) -> &'static str {
    match reason {
        "email_off" => "e-mail notifications are turned off",
        "fallback_off" => "the e-mail fallback is turned off",
        "email_unavailable" => "e-mail is not configured on this server",
        "email_unverified" => "the e-mail address is not verified",
        _ => "the reminder went by e-mail already",
    }
}

pub fn load_recipient(conn: &Connection, user_id: i64) -> rusqlite::Result<Option<Recipient>> {
    let Some(user) = users::find_by_id(conn, user_id)? else {
        return Ok(None);
    };
    let (email, email_verified) = (user.email, user.email_verified);
    let s = settings::get(conn, user_id)?;
    let text = |key: &str| s.preferences.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    let formats = Formats::new(
        s.timezone.parse().unwrap_or(chrono_tz::UTC),
        text("dateFormat").as_deref(),
        text("timeFormat").as_deref(),
        text("language").as_deref(),
    );
    Ok(Some(Recipient {
        user_id,
        email,
        formats,
        prefs: notify_prefs::global(conn, user_id)?,
        subscriptions: push_subscriptions::for_user(conn, user_id)?,
        email_verified,
        channels: channel_store::list(conn, user_id)?,
    }))
}

/// What the dispatcher decided for a claimed reminder before sending anything.
enum Plan {
    /// Nothing to send; the reminder ends (or keeps) this status with an optional reason.
    Finish(&'static str, Option<String>),
    /// No method the reminder uses is on: it fails, with a failed attempt per method in
    /// the delivery history, so that a silent reminder is visible.
    NoMethod {
        user_id: i64,
        kind: &'static str,
        title: String,
        reports: Vec<ChannelReport>,
    },
    Send {
        recipient: Box<Recipient>,
        content: Content,
        channels: Vec<Method>,
        repeat: bool,
        kind: &'static str,
        followups: Followups,
        notice: serde_json::Value,
    },
}

/// A claimed reminder's delivery round, planned and being sent.
pub struct Round {
    pub id: i64,
    pub claim: String,
    pub recipient: Box<Recipient>,
    pub reminder_kind: ReminderKind,
    pub attempts: i64,
    pub repeats_sent: i64,
    pub repeat: bool,
    /// 0 for the first sending (and its retries), n for the n-th repeat.
    pub number: i64,
    pub kind: &'static str,
    pub medication_name: String,
    pub content: Content,
    pub channels: Vec<Method>,
    /// Subscriptions a server before a crash already reached in this round.
    pub already: Vec<i64>,
    /// The e-mail channel's report when e-mail is one of the channels (queued, or why not).
    pub email: Option<ChannelReport>,
    /// The reports of the person's channels among the methods (queued, or why not).
    pub queued_channels: Vec<ChannelReport>,
    pub followups: Followups,
    /// A planned dose's first round: tried again after its tries ran out until this (the
    /// dose's grace), not given up while a late reminder can still prevent a missed dose.
    pub retry_until: Option<DateTime<Utc>>,
    /// A stock notice's facts for webhooks (the refill's day and pharmacy, the batch's
    /// expiry); null for a dose.
    pub notice: serde_json::Value,
}

/// What a round's pushes came to.
#[derive(Debug, Default)]
pub struct Pushes {
    pub delivered: Vec<i64>,
    pub gone: Vec<i64>,
    pub errors: Vec<String>,
}

/// What planning needs besides the connection.
#[derive(Clone)]
pub struct PlanContext {
    pub now: DateTime<Utc>,
    pub catch_up: Duration,
    pub link_base: String,
    pub mailer: Arc<Mailer>,
    pub settings: Arc<Settings>,
}

impl PlanContext {
    pub fn new(now: DateTime<Utc>, settings: &Arc<Settings>, mailer: &Arc<Mailer>) -> PlanContext {
        PlanContext {
            now,
            catch_up: Duration::minutes(i64::from(settings.reminders.catch_up_minutes)),
            link_base: settings.link_base(),
            mailer: Arc::clone(mailer),
            settings: Arc::clone(settings),
        }
    }
}

/// The Web Push Topic of a reminder's round: URL-safe characters, at most 32 of them.
pub fn topic(reminder_id: i64, number: i64) -> String {
    format!("r{reminder_id}n{number}")
}

/// The push channel's report when the account has no subscribed device.
pub fn no_device() -> ChannelReport {
    ChannelReport::failed(
        Method::Push,
        "push_no_device",
        "no device is subscribed to push notifications".into(),
        true,
    )
}

/// The report of a method whose global switch is off.
pub fn switched_off(prefs: &GlobalPrefs, method: Method) -> ChannelReport {
    let error = notify_prefs::method_off(prefs, method)
        .unwrap_or("This delivery method is turned off")
        .to_owned();
    let code = match method {
        Method::Push => "push_off",
        Method::Email => "email_off",
        Method::Channel(_) => "channel_unavailable",
    };
    ChannelReport::failed(method, code, error, true)
}

/// The step of a fallback to e-mail that did not happen, and why.
pub fn fallback_skipped(reason: &'static str) -> ChannelReport {
    ChannelReport {
        fallback: true,
        params: json!({ "reason": reason }),
        ..ChannelReport::failed(
            Method::Email,
            "fallback_skipped",
            format!("not sent by e-mail instead: {}", fallback_refusal_text(reason)),
            true,
        )
    }
}

/// The push channel's report from its answers.
pub fn push_report(devices: usize, mut pushes: Pushes) -> ChannelReport {
    if devices == 0 {
        return no_device();
    }
    if pushes.delivered.is_empty() {
        pushes.errors.dedup();
        let mut report = ChannelReport::failed(Method::Push, "push_failed", pushes.errors.join("; "), false);
        report.params = json!({ "devices": devices, "detail": report.detail });
        report.gone = pushes.gone;
        return report;
    }
    let delivered = pushes.delivered.len();
    ChannelReport {
        detail: format!(
            "Sent to {delivered} of {devices} device{}",
            if devices == 1 { "" } else { "s" }
        ),
        delivered_to: pushes.delivered,
        gone: pushes.gone,
        ..ChannelReport::new(
            Method::Push,
            "push_sent",
            json!({ "delivered": delivered, "devices": devices }),
        )
    }
}

/// Plans a claimed reminder inside the claiming transaction: reminders with nothing to
/// send are settled here; one to send gets its round (its take link minted, its e-mail
/// queued, its pushes noted as starting).
fn plan_claimed(
    conn: &Connection,
    id: i64,
    claim: &str,
    ctx: &PlanContext,
) -> rusqlite::Result<Option<Round>> {
    let Some(job) = reminders::job(conn, id)? else {
        return Ok(None);
    };
    // Someone else's now (the claim lapsed, or the reminder was cancelled).
    if job.claimed_until.as_deref() != Some(claim) {
        return Ok(None);
    }
    match plan_job(conn, &job, ctx.now, ctx.catch_up, &ctx.link_base)? {
        Plan::Finish(status, reason) => {
            reminders::finish(conn, id, claim, status, reason.as_deref())?;
            Ok(None)
        }
        Plan::NoMethod {
            user_id,
            kind,
            title,
            reports,
        } => {
            // Nothing was sent: like a finish, the caller learns why from the reminder.
            record(
                conn,
                user_id,
                Some(id),
                kind,
                &title,
                Some(&job.reminder.medication_name),
                &reports,
                ctx.now,
            )?;
            let why: Vec<&str> = reports.iter().filter_map(|r| r.error.as_deref()).collect();
            let reason = match why.is_empty() {
                true => "No delivery method is turned on".to_owned(),
                false => format!("No delivery method is turned on: {}", why.join("; ")),
            };
            reminders::finish(conn, id, claim, "failed", Some(&reason))?;
            Ok(None)
        }
        Plan::Send {
            recipient,
            content,
            channels,
            repeat,
            kind,
            followups,
            notice,
        } => {
            let number = job.round_offset + job.repeats_sent + i64::from(repeat);
            let mut already = Vec::new();
            if channels.contains(&Method::Push) {
                for subscription in &recipient.subscriptions {
                    if deliveries::push_starting(conn, id, number, subscription.id, Stamp::from(ctx.now))? {
                        already.push(subscription.id);
                    }
                }
            }
            let mut round = Round {
                id,
                claim: claim.to_owned(),
                recipient,
                reminder_kind: job.reminder.kind,
                attempts: job.attempts,
                repeats_sent: job.repeats_sent,
                repeat,
                number,
                kind,
                medication_name: job.reminder.medication_name.clone(),
                content,
                channels,
                already,
                email: None,
                queued_channels: Vec::new(),
                followups,
                retry_until: job.grace_ends_at.filter(|_| !repeat).map(Stamp::instant),
                notice,
            };
            if round.channels.contains(&Method::Email) {
                round.email = Some(queue_mail(conn, &round, false, ctx)?);
            }
            round.queued_channels = queue_channels(conn, &round, &job, ctx)?;
            Ok(Some(round))
        }
    }
}

pub fn not_configured() -> ChannelReport {
    ChannelReport::failed(
        Method::Email,
        "email_unavailable",
        "E-mail is not configured on this server".into(),
        true,
    )
}

pub fn unverified() -> ChannelReport {
    ChannelReport::failed(
        Method::Email,
        "email_unverified",
        "The e-mail address is not verified".into(),
        true,
    )
}

/// Queues a round's e-mail (once per round: planning the round again after a crash adds
/// nothing) and reports the channel as queued, or as unavailable without SMTP.
fn queue_mail(
    conn: &Connection,
    round: &Round,
    fallback: bool,
    ctx: &PlanContext,
) -> rusqlite::Result<ChannelReport> {
    if !ctx.mailer.is_configured() {
        return Ok(ChannelReport {
            fallback,
            ..not_configured()
        });
    }
    if !round.recipient.email_verified {
        return Ok(ChannelReport {
            fallback,
            ..unverified()
        });
    }
    let address = &round.recipient.email;
    enqueue_round_mail(
        conn,
        &ctx.mailer,
        &ctx.settings,
        &RoundMail {
            user_id: round.recipient.user_id,
            address,
            content: &round.content,
            round: ReminderRound {
                reminder_id: round.id,
                round: round.number,
                delivery_kind: round.kind,
                title: &round.content.title,
                medication_name: Some(&round.medication_name),
                fallback,
            },
            retry_until: round.retry_until,
        },
        ctx.now,
    )?;
    Ok(ChannelReport {
        detail: if fallback {
            format!("Queued for {address} (every push failed)")
        } else {
            format!("Queued for {address}")
        },
        fallback,
        queued: true,
        ..ChannelReport::new(
            Method::Email,
            if fallback {
                "fallback_queued"
            } else {
                "email_queued"
            },
            json!({ "address": address }),
        )
    })
}

/// A reminder round's e-mail, as the queue keeps it.
pub struct RoundMail<'a> {
    pub user_id: i64,
    pub address: &'a str,
    pub content: &'a Content,
    pub round: ReminderRound<'a>,
    /// Tried again after its tries ran out until this (a dose's grace; see [`Round`]).
    pub retry_until: Option<DateTime<Utc>>,
}

/// Queues a round's e-mail (once per round: the queue keeps one mail per reminder and
/// round) with a Message-ID of its own and the retries of `reminders.*`. Returns whether it
/// was queued now.
pub fn enqueue_round_mail(
    conn: &Connection,
    mailer: &Mailer,
    settings: &Settings,
    mail: &RoundMail<'_>,
    now: DateTime<Utc>,
) -> rusqlite::Result<bool> {
    let email = mail.content.email();
    let message_id = mailer.message_id(&format!(
        "reminder.{}.{}.{}",
        mail.round.reminder_id,
        mail.round.round,
        &codes::link_token()[..12]
    ));
    outbox::enqueue(
        conn,
        &NewMail {
            kind: MailKind::Reminder,
            user_id: Some(mail.user_id),
            reminder: Some(mail.round.clone()),
            recipient: mail.address,
            subject: &email.subject,
            text: &email.text,
            html: &email.html,
            message_id: &message_id,
            max_attempts: settings.reminders.retry_attempts,
            backoff_seconds: settings.reminders.retry_backoff_seconds,
            retry_until: mail.retry_until.map(Stamp::from),
            now: &clock::stamp(now),
        },
    )
}

/// When a reminder round's next repeat is due, if it has one.
pub fn next_repeat(
    kind: ReminderKind,
    repeats_done: i64,
    followups: Followups,
    now: DateTime<Utc>,
) -> Option<String> {
    let interval = Duration::minutes(followups.every_minutes.max(1));
    (kind.is_dose() && repeats_done < followups.times).then(|| clock::stamp(now + interval))
}

/// Records one overdue dose as missed, or links it to an entry logged near it that named
/// no reminder. Returns whether a missed entry was written.
fn record_one_missed(
    conn: &Connection,
    dose: &reminders::Overdue,
    now: DateTime<Utc>,
) -> Result<bool, DbError> {
    let Some(m) = medications::find(conn, dose.user_id, dose.medication_id)? else {
        return Ok(false);
    };
    let due = dose.scheduled_time.instant();
    if let Some(entry) = reminders::unclaimed_entry(
        conn,
        dose.user_id,
        m.id,
        &clock::stamp(due - Duration::hours(1)),
        &clock::stamp(now),
    )? {
        reminders::link_entry(conn, dose.id, entry, &clock::stamp(now))?;
        return Ok(false);
    }
    let quantity = planner::dose_quantity(conn, dose.user_id, &m, due, now)?;
    crate::services::doses::record_dose(
        conn,
        dose.user_id,
        &m,
        crate::services::doses::NewDose {
            status: crate::domain::dose::DoseStatus::Missed,
            taken: due,
            quantity,
            dosage_unit: m.unit.clone(),
            dosage: None,
            dosage_id: Some(dose.id),
            answer_nearest: false,
            affect_inventory: false,
            // Recorded by the engine, not by a person.
            logged_by: None,
        },
        now,
    )
    .map_err(|e| DbError::Task(format!("recording a missed dose failed: {e:?}")))?;
    Ok(true)
}

/// How a reminder ends whose dose was answered before its first round went out: cancelled
/// as not needed ("The dose was already logged"), or, when its delivery was failing until the
/// dose's grace ran out and the engine recorded the dose missed, failed with the reason it
/// kept (nobody logged anything; the reminder never reached the person).
pub fn answered_unsent(
    conn: &Connection,
    job: &Job,
) -> rusqlite::Result<(&'static str, Option<&'static str>)> {
    if job.reminder.failure_reason.is_some() && reminders::missed_by_engine(conn, job.reminder.id)? {
        return Ok(("failed", None));
    }
    Ok(("cancelled", Some(reminders::ANSWERED_BEFORE_SENT)))
}

/// Records a round whose pushes all have their answers: the delivery history, the
/// fallback e-mail when every push failed, and the reminder's next state. Returns the
/// channel reports and whether a fallback e-mail was queued.
fn finish_round(
    conn: &Connection,
    round: &Round,
    pushes: Pushes,
    ctx: &PlanContext,
) -> rusqlite::Result<(Vec<ChannelReport>, bool)> {
    let now = ctx.now;
    let mut reports = Vec::new();
    if round.channels.contains(&Method::Push) {
        reports.push(push_report(round.recipient.subscriptions.len(), pushes));
    }
    reports.extend(round.email.clone());
    reports.extend(round.queued_channels.iter().cloned());
    let push_failed = reports.iter().any(|r| r.channel == Method::Push && !r.ok());
    let channel_queued = round.queued_channels.iter().any(|r| r.queued);
    let mut fallback_queued = false;
    // With e-mail notifications off, or the fallback not chosen, no reminder e-mail goes out;
    // a channel on its way carries the reminder instead.
    if push_failed
        && !channel_queued
        && fallback_refused(&round.recipient, &round.channels, ctx.mailer.is_configured()).is_none()
    {
        reports.push(queue_mail(conn, round, true, ctx)?);
        fallback_queued = true;
    }
    record(
        conn,
        round.recipient.user_id,
        Some(round.id),
        round.kind,
        &round.content.title,
        Some(&round.medication_name),
        &reports,
        now,
    )?;
    deliveries::forget_pushes(conn, round.id)?;
    let delivered = reports.iter().any(|r| r.ok() && !r.queued);
    let next = next_repeat(
        round.reminder_kind,
        round.repeats_sent + i64::from(round.repeat),
        round.followups,
        now,
    );
    // The devices that show this round's notification get its withdrawal once it is
    // handled; if it was handled while the round was out, they get it now.
    if round.reminder_kind.is_dose() {
        let topic = topic(round.id, round.number);
        for report in reports.iter().filter(|r| r.channel == Method::Push) {
            for subscription in &report.delivered_to {
                reminders::shown_on(conn, round.id, *subscription, &topic)?;
            }
        }
        if let Some(outcome) = reminders::handled_since(conn, round.id, round.number)? {
            reminders::withdraw(conn, round.id, &outcome, Stamp::from(now))?;
        }
    }
    let mail = match reports.iter().any(|r| r.queued) {
        true => outbox::round_mail(conn, round.id, round.number)?,
        false => None,
    };
    let sent_reports: Vec<ChannelReport> = reports.iter().filter(|r| !r.queued).cloned().collect();
    let mut reason = failure_reason(&sent_reports);
    // The channel queue may have sent (or given up) the round's messages meanwhile.
    let (channels_waiting, channels_delivered) = match channel_queued {
        true => channel_store::round_state(conn, round.id, round.number)?,
        false => (0, 0),
    };
    match (delivered || channels_delivered > 0, mail) {
        (true, _) | (false, Some((_, MailState::Accepted))) => {
            reminders::delivered(
                conn,
                round.id,
                &round.claim,
                Stamp::from(now),
                round.repeat,
                next.as_deref(),
            )?;
        }
        (false, Some((mail_id, MailState::Waiting))) => {
            let others = (!reason.is_empty()).then_some(reason.as_str());
            outbox::let_decide(conn, mail_id, others)?;
            if channels_waiting > 0 {
                channel_store::let_decide(conn, round.id, round.number)?;
            }
            reminders::hold_for_mail(conn, round.id, &round.claim)?;
        }
        // Only channels can still deliver it: the first to take it decides.
        (false, _) if channels_waiting > 0 => {
            channel_store::let_decide(conn, round.id, round.number)?;
            reminders::hold_for_mail(conn, round.id, &round.claim)?;
        }
        (false, mail) => {
            if let Some((_, MailState::Failed(error))) = mail {
                // The e-mail used up its own retries: no further round.
                reason = join_reasons(&reason, &format!("email: {error}"));
                if round.repeat {
                    reminders::repeat_failed(conn, round.id, &round.claim, next.as_deref())?;
                } else {
                    reminders::round_failed(conn, round.id, &round.claim, None, &reason)?;
                }
            } else if round.repeat {
                reminders::repeat_failed(conn, round.id, &round.claim, next.as_deref())?;
            } else {
                if reason.is_empty() {
                    reason = "no delivery method is turned on".into();
                }
                let retries = &ctx.settings.reminders;
                let retry_at = next_try(
                    round.attempts + 1,
                    i64::from(retries.retry_backoff_seconds),
                    i64::from(retries.retry_attempts),
                    round.retry_until,
                    now,
                )
                .map(clock::stamp);
                reminders::round_failed(conn, round.id, &round.claim, retry_at.as_deref(), &reason)?;
            }
        }
    }
    Ok((reports, fallback_queued))
}

/// Two parts of a failure reason, either possibly empty.
pub fn join_reasons(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_owned(),
        (_, true) => first.to_owned(),
        _ => format!("{first}; {second}"),
    }
}

fn failure_reason(reports: &[ChannelReport]) -> String {
    reports
        .iter()
        .filter_map(|r| r.error.as_ref().map(|e| format!("{}: {e}", r.channel)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Writes the delivery history of one round and keeps the subscriptions tidy: the ones the
/// push service called gone are deleted. Queued e-mails are left to the queue, which
/// records their outcome.
#[allow(clippy::too_many_arguments)]
pub fn record(
    conn: &Connection,
    user_id: i64,
    reminder_id: Option<i64>,
    kind: &str,
    title: &str,
    medication_name: Option<&str>,
    reports: &[ChannelReport],
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    for report in reports.iter().filter(|r| !r.queued) {
        let params = report.params.to_string();
        deliveries::insert(
            conn,
            &NewDelivery {
                user_id,
                reminder_id,
                kind,
                title,
                medication_name,
                channel: &report.channel.word(),
                attempted_at: Stamp::from(now),
                error: report.error.as_deref(),
                fallback: report.fallback,
                result_code: report.code,
                result_params: &params,
            },
        )?;
        for id in &report.gone {
            push_subscriptions::delete(conn, *id)?;
        }
        for id in &report.delivered_to {
            push_subscriptions::touch(conn, *id, Stamp::from(now))?;
        }
    }
    Ok(())
}

/// Decides what a claimed reminder needs, and for dose reminders mints its take link.
fn plan_job(
    conn: &Connection,
    job: &Job,
    now: DateTime<Utc>,
    catch_up: Duration,
    link_base: &str,
) -> rusqlite::Result<Plan> {
    let repeat = job.reminder.status == ReminderStatus::Sent;
    match job.reminder.status.as_str() {
        "scheduled" | "sent" => {}
        // Cancelled or failed meanwhile: nothing to send.
        other => {
            return Ok(Plan::Finish(
                if other == "cancelled" {
                    "cancelled"
                } else {
                    "failed"
                },
                None,
            ));
        }
    }
    let Some(recipient) = load_recipient(conn, job.user_id)? else {
        return Ok(Plan::Finish("cancelled", None));
    };
    let medication = match job.reminder.medication_id {
        Some(id) => medications::find(conn, job.user_id, id)?,
        None => None,
    };
    let followups = followups(&recipient.prefs, medication.as_ref().map(|m| &m.rules));
    if repeat {
        // Repeats that fell due while the server was down are dropped, not sent hours late.
        let late = job
            .next_attempt_at
            .is_some_and(|at| now - at.instant() > catch_up);
        if job.reminder.answered_at.is_some()
            || job.repeats_sent >= followups.times
            || !job.reminder.kind.is_dose()
            || late
        {
            return Ok(Plan::Finish("sent", None));
        }
    } else {
        if job.reminder.answered_at.is_some() {
            let (status, reason) = answered_unsent(conn, job)?;
            return Ok(Plan::Finish(status, reason.map(str::to_owned)));
        }
        if job.attempts == 0 && now - job.reminder.reminder_time.instant() > catch_up {
            return Ok(Plan::Finish("failed", Some("expired".into())));
        }
    }
    let Some(medication) = medication else {
        // The medication was deleted: a repeat has nothing left to remind of.
        return Ok(Plan::Finish(if repeat { "sent" } else { "cancelled" }, None));
    };
    // An archived person gets no reminders; someone else's in the account are named.
    let person = people::find(conn, medication.person_id)?;
    if person.as_ref().is_some_and(|p| p.archived) {
        return Ok(Plan::Finish(
            if repeat { "sent" } else { "cancelled" },
            (!repeat).then(|| "The person is archived".to_owned()),
        ));
    }
    let whose = person.filter(|p| !p.is_self).map(|p| p.name);
    let own = notify_prefs::for_medication(conn, medication.id)?;
    let effective = notify_prefs::effective(&recipient.prefs, own.as_ref());
    // "Hide medication names": no name, dose or message on a lock screen or in a mailbox.
    let hide = recipient.prefs.hide_medication_names;
    let mut notice = serde_json::Value::Null;
    let (kind, title, body, due, open_path) = if job.reminder.kind == ReminderKind::LowStock {
        let inventory = medications::inventory(conn, medication.id)?;
        let left = inventory
            .as_ref()
            .map(|inv| (inv.current_quantity, inv.containers.stock_unit()));
        let (title, body) = match hide {
            true => messages::hidden_low_stock_body(recipient.formats.lang),
            false => messages::low_stock_body(&medication.name, left, recipient.formats.lang),
        };
        ("low_stock", title, body, None, "/medications")
    } else if !job.reminder.kind.is_dose() {
        match stock_notice(conn, job, &medication, &recipient, now)? {
            Ok(words) => {
                notice = words.facts;
                (words.kind, words.title, words.body, None, "/medications")
            }
            // What it was about is gone (ordered, restocked, used up): nothing to say.
            Err(reason) => return Ok(Plan::Finish("cancelled", Some(reason.to_owned()))),
        }
    } else {
        if !recipient.prefs.reminders_enabled {
            return Ok(if repeat {
                Plan::Finish("sent", None)
            } else {
                Plan::Finish("cancelled", Some("Reminders are turned off".into()))
            });
        }
        let due = job.reminder.scheduled_time.instant();
        let quantity = planner::dose_quantity(conn, job.user_id, &medication, due, now)?;
        let amount = (quantity, medication.unit.as_str());
        let message = job.reminder.message.clone().or(effective.custom_message.clone());
        let (title, body) = match hide {
            true => messages::hidden_dose_body(due, &recipient.formats),
            false => messages::dose_body(
                &medication.name,
                Some(amount),
                due,
                &recipient.formats,
                message.as_deref(),
                repeat,
            ),
        };
        (
            if repeat { "repeat" } else { "reminder" },
            title,
            body,
            Some(due),
            "/today",
        )
    };
    let title = match &whose {
        Some(person) => messages::for_person(&title, person, recipient.formats.lang),
        None => title,
    };
    let methods = if !job.reminder.kind.is_dose() {
        recipient.prefs.delivery_methods.clone()
    } else {
        effective.methods
    };
    let channels = notify_prefs::channels(&recipient.prefs, &methods);
    if channels.is_empty() {
        if repeat {
            return Ok(Plan::Finish("sent", None));
        }
        // Every method this reminder uses is switched off: nothing can be sent, and the
        // delivery history says so for each of them.
        let reports = methods
            .iter()
            .map(|method| switched_off(&recipient.prefs, *method))
            .collect();
        return Ok(Plan::NoMethod {
            user_id: recipient.user_id,
            kind,
            title,
            reports,
        });
    }
    let token = match due {
        Some(due) => {
            let token = codes::link_token();
            // A snoozed reminder's link lives as long after the snooze as a first one.
            let from = job.reminder.reminder_time.max(job.reminder.scheduled_time);
            let expires = from.instant().max(due) + Duration::hours(TAKE_LINK_HOURS);
            reminders::add_take_token(
                conn,
                &codes::hash_link_token(&token),
                job.reminder.id,
                &clock::stamp(expires),
                None,
            )?;
            Some(token)
        }
        None => None,
    };
    let take_url = token
        .as_ref()
        .map(|token| format!("{link_base}/notifications/take/{token}"));
    let content = Content {
        title,
        body,
        take_url,
        open_url: format!("{link_base}{open_path}"),
        tag: format!("reminder-{}", job.reminder.id),
        token,
        snooze: job.reminder.kind.is_dose(),
        silent: !recipient.prefs.sound_enabled,
        vibrate: recipient.prefs.vibration_enabled,
        lang: recipient.formats.lang,
    };
    Ok(Plan::Send {
        recipient: Box::new(recipient),
        content,
        channels,
        repeat,
        kind,
        followups,
        notice,
    })
}

/// What a stock notice says, its delivery kind and its facts for webhooks.
struct NoticeWords {
    kind: &'static str,
    title: String,
    body: String,
    facts: serde_json::Value,
}

/// The words of a stock notice ("order a refill", a batch expiring or expired) as things
/// stand now; `Err` with the reason it is no longer needed.
fn stock_notice(
    conn: &Connection,
    job: &Job,
    medication: &medications::Medication,
    recipient: &Recipient,
    now: DateTime<Utc>,
) -> rusqlite::Result<Result<NoticeWords, &'static str>> {
    let hide = recipient.prefs.hide_medication_names;
    let formats = &recipient.formats;
    let clock = planner::UserClock::at(conn, job.user_id, now)?;
    if job.reminder.kind == ReminderKind::Refill {
        let Some(p) = crate::store::prescriptions::find(conn, medication.id)? else {
            return Ok(Err("The prescription was removed"));
        };
        let need = match stock_notices::refill_need(conn, medication, &p, &clock)? {
            Some(need) if !need.ordered => need,
            Some(_) => return Ok(Err("The refill was marked ordered")),
            None => return Ok(Err("No refill is needed any more")),
        };
        let refill = messages::Refill {
            why: match need.reason {
                RefillReason::Stock => messages::RefillWhy::Stock,
                RefillReason::Expiry => messages::RefillWhy::Expiry,
            },
            due_on: need.due_on,
            new_prescription_needed: need.new_prescription_needed,
            none_left: p.refills_left == Some(0),
            pharmacy_name: &p.pharmacy_name,
            pharmacy_phone: &p.pharmacy_phone,
            pharmacy_url: &p.pharmacy_url,
        };
        let (title, body) = messages::refill_body(&medication.name, &refill, formats, hide);
        return Ok(Ok(NoticeWords {
            kind: "refill",
            title,
            body,
            facts: json!({
                "reason": need.reason,
                "due_on": need.due_on,
                "order_by": need.order_by,
                "new_prescription_needed": need.new_prescription_needed,
                "refills_left": p.refills_left,
                "pharmacy_phone": (!p.pharmacy_phone.is_empty()).then_some(&p.pharmacy_phone),
                "pharmacy_url": (!p.pharmacy_url.is_empty()).then_some(&p.pharmacy_url),
            }),
        }));
    }
    let expired = job.reminder.kind == ReminderKind::BatchExpired;
    let day = stock_notices::notice_day(job.reminder.scheduled_time, &clock);
    let batches: Vec<_> = crate::store::batches::list(conn, medication.id)?
        .into_iter()
        .filter(|b| b.expires_on == day && b.remaining > crate::domain::quantity::Quantity::ZERO)
        .collect();
    if batches.is_empty() {
        return Ok(Err("The batch was used up or removed"));
    }
    let left = batches
        .iter()
        .fold(crate::domain::quantity::Quantity::ZERO, |sum, b| {
            sum + b.remaining
        });
    let lots: Vec<&str> = batches.iter().filter_map(|b| b.lot.as_deref()).collect();
    let lot = (!lots.is_empty()).then(|| lots.join(", "));
    let inventory = medications::inventory(conn, medication.id)?;
    let unit = inventory
        .as_ref()
        .map_or(medication.unit.as_str(), |inv| inv.containers.stock_unit());
    let (title, body) = messages::batch_body(
        &medication.name,
        (day, expired),
        (left, unit),
        lot.as_deref(),
        formats,
        hide,
    );
    Ok(Ok(NoticeWords {
        kind: if expired {
            "batch_expired"
        } else {
            "batch_expiring"
        },
        title,
        body,
        facts: json!({
            "expires_on": day,
            "expired": expired,
            "remaining": left,
            "lots": if hide { None } else { Some(lots) },
            "batch_ids": batches.iter().map(|b| b.id).collect::<Vec<_>>(),
        }),
    }))
}

/// The person's channel a reminder (or a test) is to go to, or why it cannot: deleted,
/// switched off, waiting for its Telegram chat to be linked, or disabled after failures.
/// Reminders and `send-test` report it in the same words.
pub fn usable_channel(
    method: Method,
    channel_id: i64,
    channels: &[Channel],
) -> Result<&Channel, Box<ChannelReport>> {
    let Some(channel) = channels.iter().find(|c| c.id == channel_id) else {
        return Err(Box::new(ChannelReport::failed(
            method,
            "channel_unavailable",
            "the channel was deleted".into(),
            true,
        )));
    };
    if channel.usable() {
        return Ok(channel);
    }
    let why = match (channel.enabled, channel.state.as_str()) {
        (false, _) => "the channel is switched off",
        (_, "pending") => "the Telegram chat is not linked yet",
        _ => "the channel is disabled",
    };
    Err(Box::new(ChannelReport {
        params: json!({ "name": channel.name, "kind": channel.kind, "state": channel.state, "enabled": channel.enabled, "detail": why }),
        ..ChannelReport::failed(
            method,
            "channel_unavailable",
            format!("{}: {why}", channel.name),
            true,
        )
    }))
}

/// Queues a round's message to each of the person's channels among its methods (once per
/// round and channel: planning the round again adds nothing), and reports each as queued,
/// or as unavailable (switched off, waiting for a Telegram link, disabled, deleted).
fn queue_channels(
    conn: &Connection,
    round: &Round,
    job: &Job,
    ctx: &PlanContext,
) -> rusqlite::Result<Vec<ChannelReport>> {
    let mut reports = Vec::new();
    let event = match round.reminder_kind {
        ReminderKind::LowStock => "stock.low",
        ReminderKind::Refill => "refill.due",
        ReminderKind::BatchExpiring => "batch.expiring",
        ReminderKind::BatchExpired => "batch.expired",
        ReminderKind::Dose | ReminderKind::OneOff => "reminder.due",
    };
    // Webhooks that subscribed to the event without being chosen for reminders hear of it
    // too; they are told, not relied on (no delivery of the reminder's).
    for hook in round.recipient.channels.iter().filter(|c| {
        c.kind == "webhook"
            && c.usable()
            && !round.channels.contains(&Method::Channel(c.id))
            && c.config["events"]
                .as_array()
                .is_some_and(|e| e.iter().any(|e| e == event))
    }) {
        let message = channel_message(round, job, &ctx.link_base);
        channel_store::enqueue(
            conn,
            &NewSend {
                channel_id: hook.id,
                user_id: round.recipient.user_id,
                reminder_id: Some(round.id),
                round: Some(round.number),
                escalation_id: None,
                event,
                delivery_kind: None,
                title: &round.content.title,
                medication_name: Some(&round.medication_name),
                fallback: false,
                message: &serde_json::to_value(&message).unwrap_or_default(),
                idempotency_key: &format!("msg_pillbox_r{}_n{}", round.id, round.number),
                now: &clock::stamp(ctx.now),
                give_up_at: Stamp::from(ctx.now + Duration::hours(24)),
            },
        )?;
    }
    for method in &round.channels {
        let Some(channel_id) = method.channel_id() else {
            continue;
        };
        let channel = match usable_channel(*method, channel_id, &round.recipient.channels) {
            Ok(channel) => channel,
            Err(report) => {
                reports.push(*report);
                continue;
            }
        };
        let message = channel_message(round, job, &ctx.link_base);
        let webhook = channel.kind == "webhook";
        let key = if webhook {
            format!("msg_pillbox_r{}_n{}", round.id, round.number)
        } else {
            format!("pillbox{}r{}", channel.id, round.id)
        };
        let give_up = match webhook {
            true => ctx.now + Duration::hours(24),
            false => {
                (ctx.now + ctx.catch_up.max(Duration::minutes(5))).max(round.retry_until.unwrap_or(ctx.now))
            }
        };
        channel_store::enqueue(
            conn,
            &NewSend {
                channel_id: channel.id,
                user_id: round.recipient.user_id,
                reminder_id: Some(round.id),
                round: Some(round.number),
                escalation_id: None,
                event,
                delivery_kind: Some(round.kind),
                title: &round.content.title,
                medication_name: Some(&round.medication_name),
                fallback: false,
                message: &serde_json::to_value(&message).unwrap_or_default(),
                idempotency_key: &key,
                now: &clock::stamp(ctx.now),
                give_up_at: Stamp::from(give_up),
            },
        )?;
        reports.push(ChannelReport {
            detail: format!("Queued for {}", channel.name),
            queued: true,
            ..ChannelReport::new(
                *method,
                "channel_queued",
                json!({ "name": channel.name, "kind": channel.kind }),
            )
        });
    }
    Ok(reports)
}

/// A reminder's round as a channel message: the words it went out with, the take links, and
/// for webhooks the facts (`data`).
fn channel_message(round: &Round, job: &Job, link_base: &str) -> Message {
    let hide = round.recipient.prefs.hide_medication_names;
    let priority = if round.repeat {
        Priority::High
    } else {
        Priority::Default
    };
    let mut data = json!({
        "reminder_id": round.id,
        "kind": job.reminder.kind,
        "round": round.number,
        "repeat": round.repeat,
        "medication": if hide { None } else { Some(&round.medication_name) },
        "medication_id": job.reminder.medication_id,
        "scheduled_time": job.reminder.scheduled_time,
    });
    if !round.notice.is_null() {
        data["notice"] = round.notice.clone();
    }
    Message::of(&round.content, link_base, priority, data)
}

/// What a stopped or killed server left in the middle of sending, put back at the next start.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Reminders whose claim was released: they go out again.
    pub claims: usize,
    /// E-mails and channel messages back in their queues.
    pub queued: usize,
    /// Pushes whose answer was lost: resent with the same Topic.
    pub pushes: i64,
    /// Some device shows a reminder (so handled reminders may have withdrawals).
    pub shown: bool,
}

/// At start, before the first pass: releases the claims and queued sends a stopped or
/// killed server left (the data directory is locked, so they are nobody's now).
pub fn recover(conn: &mut Connection) -> Result<Recovered, DbError> {
    let tx = conn.transaction()?;
    let recovered = Recovered {
        claims: reminders::release_claims(&tx)?,
        queued: outbox::requeue_in_doubt(&tx)? + channel_store::requeue_in_doubt(&tx)?,
        pushes: deliveries::pushes_in_doubt(&tx)?,
        shown: reminders::shown_anywhere(&tx)?,
    };
    tx.commit()?;
    Ok(recovered)
}

/// What the engine undid after the clock went back.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Rewound {
    /// Doses it had recorded missed before their grace ran out: the entries are withdrawn
    /// and the reminders planned again.
    pub misses: usize,
    /// Reminders that had expired unsent before their time: planned again.
    pub expired: usize,
    /// Carers' alerts about those doses that had reached them: withdrawn from their devices
    /// and channels, and corrected by e-mail where they were mailed.
    pub alerts: usize,
    /// Corrections queued for the mail queue.
    pub mailed: usize,
}

/// After the clock went back to `ctx.now` (or at start, where a jump while stopped cannot
/// be seen): no dose stays recorded missed by the engine while its grace has not run out,
/// and no reminder stays expired whose time is within the catch-up window or still to come.
/// Carers alerted about such a dose hear that the alert no longer holds, and are alerted
/// again if the dose is missed for real. What a person recorded is never touched. One
/// transaction.
pub fn after_clock_went_back(conn: &mut Connection, ctx: &PlanContext) -> Result<Rewound, DbError> {
    let tx = conn.transaction()?;
    let at = Stamp::from(ctx.now);
    let misses = reminders::missed_before_their_time(&tx, at, schedule::DEFAULT_GRACE_MINUTES)?;
    let mut rewound = Rewound {
        misses: misses.len(),
        ..Rewound::default()
    };
    for &(reminder_id, user_id, history_id) in &misses {
        // Deleting the entry opens its reminders again.
        crate::store::history::delete(&tx, user_id, history_id)?;
        let told = crate::store::escalations::retract(&tx, reminder_id, at)?;
        if !told.is_empty() {
            reminders::withdraw_carers_alerts(&tx, reminder_id, CLOCK_CORRECTED, at)?;
        }
        for alert in &told {
            channel_store::queue_escalation_withdrawn(&tx, alert.id, at)?;
        }
        for alert in told.iter().filter(|a| a.mailed) {
            rewound.mailed += usize::from(mail_correction(&tx, reminder_id, alert, ctx)?);
        }
        rewound.alerts += told.len();
        reminders::plan_again(&tx, reminder_id, at)?;
    }
    let expired = reminders::expired_before_their_time(&tx, &clock::stamp(ctx.now - ctx.catch_up))?;
    for &id in &expired {
        reminders::plan_again(&tx, id, at)?;
    }
    rewound.expired = expired.len();
    tx.commit()?;
    Ok(rewound)
}

/// Queues the e-mail that tells a carer their alert about a dose (the reminder) no longer
/// holds, in their language, zone and formats. Returns whether one was queued.
fn mail_correction(
    conn: &Connection,
    reminder_id: i64,
    alert: &crate::store::escalations::Retracted,
    ctx: &PlanContext,
) -> rusqlite::Result<bool> {
    let (Some(carer), Some(job)) = (
        load_recipient(conn, alert.carer_id)?,
        reminders::job(conn, reminder_id)?,
    ) else {
        return Ok(false);
    };
    let Some(medication_id) = job.reminder.medication_id else {
        return Ok(false);
    };
    let person = match medications::find(conn, job.user_id, medication_id)? {
        Some(medication) => people::name(conn, medication.person_id)?.unwrap_or_default(),
        None => return Ok(false),
    };
    let (title, body) =
        messages::escalation_retracted_body(&person, job.reminder.scheduled_time.instant(), &carer.formats);
    let email = Content {
        title,
        body,
        take_url: None,
        open_url: format!("{}/today", ctx.link_base),
        tag: format!("reminder-{reminder_id}"),
        token: None,
        snooze: false,
        silent: true,
        vibrate: false,
        lang: carer.formats.lang,
    }
    .email();
    let message_id = ctx.mailer.message_id(&format!(
        "escalation.{}.corrected.{}",
        alert.id,
        &codes::link_token()[..12]
    ));
    outbox::enqueue(
        conn,
        &NewMail {
            kind: MailKind::Reminder,
            user_id: Some(alert.carer_id),
            reminder: None,
            recipient: &carer.email,
            subject: &email.subject,
            text: &email.text,
            html: &email.html,
            message_id: &message_id,
            max_attempts: ctx.settings.reminders.retry_attempts,
            backoff_seconds: ctx.settings.reminders.retry_backoff_seconds,
            retry_until: None,
            now: &clock::stamp(ctx.now),
        },
    )
}

/// Claims up to `limit` due reminders and plans them, in one transaction. Returns how many
/// were claimed and the rounds that have something to send.
pub fn claim_and_plan(
    conn: &mut Connection,
    ctx: &PlanContext,
    limit: i64,
) -> Result<(usize, Vec<Round>), DbError> {
    let tx = conn.transaction()?;
    let claim = reminders::new_claim(&clock::stamp(ctx.now + Duration::minutes(CLAIM_MINUTES)));
    let ids = reminders::claim_due(&tx, Stamp::from(ctx.now), &claim, limit)?;
    let mut rounds = Vec::with_capacity(ids.len());
    for id in &ids {
        rounds.extend(plan_claimed(&tx, *id, &claim, ctx)?);
    }
    tx.commit()?;
    Ok((ids.len(), rounds))
}

/// Plans one reminder the caller claimed (the "send now" action), in one transaction.
/// `None` when there is nothing to send (answered, expired, cancelled meanwhile, no
/// method on: the reminder says why).
pub fn plan_one(
    conn: &mut Connection,
    id: i64,
    claim: &str,
    ctx: &PlanContext,
) -> Result<Option<Round>, DbError> {
    let tx = conn.transaction()?;
    let round = plan_claimed(&tx, id, claim, ctx)?;
    tx.commit()?;
    Ok(round)
}

/// A push a push service accepted: (reminder, round number, subscription).
pub type PushSent = (i64, i64, i64);

/// What recording a batch of results came to.
#[derive(Debug, Default)]
pub struct Recorded {
    /// Each finished round's channel reports, in the order given.
    pub reports: Vec<Vec<ChannelReport>>,
    /// A fallback e-mail was queued (the mail queue has work).
    pub fallback_queued: bool,
    /// Some device took a push (so handled reminders may have withdrawals).
    pub pushed: bool,
}

/// Writes, in one transaction, the pushes accepted so far and the results of the rounds
/// that have all their answers.
pub fn record_results(
    conn: &mut Connection,
    ctx: &PlanContext,
    sent: &[PushSent],
    finished: Vec<(Round, Pushes)>,
) -> Result<Recorded, DbError> {
    let tx = conn.transaction()?;
    for (reminder_id, number, subscription_id) in sent {
        deliveries::push_sent(&tx, *reminder_id, *number, *subscription_id, Stamp::from(ctx.now))?;
    }
    let mut recorded = Recorded {
        reports: Vec::with_capacity(finished.len()),
        pushed: finished.iter().any(|(_, p)| !p.delivered.is_empty()),
        fallback_queued: false,
    };
    for (round, pushes) in finished {
        let (reports, fallback_queued) = finish_round(&tx, &round, pushes, ctx)?;
        recorded.fallback_queued |= fallback_queued;
        recorded.reports.push(reports);
    }
    tx.commit()?;
    Ok(recorded)
}

/// Records as missed, in one transaction, up to `MISSED_BATCH` planned doses whose grace
/// ran out unlogged (DESIGN §4): a history entry `missed` at the dose's time, moving no
/// stock, that answers the reminder, so it is never recorded twice and the devices showing
/// it get a withdrawal. Returns how many overdue doses were found and how many were
/// recorded (the others were linked to an entry logged near them); fewer found than
/// `MISSED_BATCH` means none is left.
pub fn record_missed_batch(conn: &mut Connection, now: DateTime<Utc>) -> Result<(usize, usize), DbError> {
    let tx = conn.transaction()?;
    let from = now
        - Duration::hours(MISSED_LOOKBACK_HOURS)
        - Duration::minutes(i64::from(schedule::MAX_GRACE_MINUTES));
    let overdue = reminders::overdue(
        &tx,
        &clock::stamp(from),
        Stamp::from(now),
        schedule::DEFAULT_GRACE_MINUTES,
        MISSED_BATCH,
    )?;
    let mut recorded = 0;
    for dose in &overdue {
        recorded += usize::from(record_one_missed(&tx, dose, now)?);
    }
    tx.commit()?;
    Ok((overdue.len(), recorded))
}

/// The end of a pass: take links past their time, and sends done more than a week ago.
pub fn prune(conn: &mut Connection, now: DateTime<Utc>) -> Result<(), DbError> {
    let keep_since = clock::stamp(now - Duration::days(KEEP_DONE_MAILS_DAYS));
    let tx = conn.transaction()?;
    reminders::prune_take_tokens(&tx, Stamp::from(now))?;
    outbox::prune(&tx, &keep_since)?;
    channel_store::prune(&tx, &keep_since)?;
    tx.commit()?;
    Ok(())
}

/// Takes up to `limit` queued withdrawals off the queue, in one transaction.
pub fn take_withdrawals(conn: &mut Connection, limit: i64) -> Result<Vec<Withdrawal>, DbError> {
    let tx = conn.transaction()?;
    let batch = reminders::take_withdrawals(&tx, limit)?;
    tx.commit()?;
    Ok(batch)
}

/// Records a test notification's steps in the delivery history, in one transaction.
pub fn record_test(
    conn: &mut Connection,
    user_id: i64,
    title: &str,
    reports: &[ChannelReport],
    now: DateTime<Utc>,
) -> Result<(), DbError> {
    let tx = conn.transaction()?;
    record(&tx, user_id, None, "test", title, None, reports, now)?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The rounds on an in-memory database made by the real migrations, driven the way the
    //! engine drives them: claim and plan, then record what the sends came to.

    use super::*;
    use crate::domain::dose::DoseStatus;
    use crate::domain::medication::MedicationId;
    use crate::services::{access, doses, medications as meds};
    use crate::store::history;

    struct World {
        conn: Connection,
        user: i64,
        medication: i64,
        settings: Arc<Settings>,
        mailer: Arc<Mailer>,
        _dir: tempfile::TempDir,
    }

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    /// Kim (zone UTC, verified address) with Aspirin at 08:00 every day, planned on
    /// 2 March 2026 at 06:00; e-mail is configured on the server when `smtp` is set.
    fn world(smtp: bool) -> World {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        crate::db::migrations::migrate(&mut conn, dir.path()).unwrap();
        let now = at("2026-03-02T06:00:00Z");
        let user = users::insert(&conn, "kim@example.org", "not-a-hash", true, Stamp::from(now))
            .unwrap()
            .unwrap()
            .id;
        let input = serde_json::from_value(json!({
            "name": "Aspirin", "unit": "tablets", "frequency": "daily", "default_quantity": 2,
            "schedule": { "times": ["08:00"] },
        }))
        .unwrap();
        let reach = meds::Reach {
            email_available: smtp,
        };
        let medication = meds::create(&conn, user, input, reach, 2, now).unwrap().id;
        let mut settings = Settings::default();
        if smtp {
            settings.smtp.host = Some("127.0.0.1".into());
            settings.smtp.tls = crate::config::SmtpTls::None;
            settings.smtp.from = Some("pillbox@example.org".into());
        }
        let mailer = Arc::new(Mailer::new(&settings.smtp).unwrap());
        World {
            conn,
            user,
            medication,
            settings: Arc::new(settings),
            mailer,
            _dir: dir,
        }
    }

    impl World {
        fn ctx(&self, now: &str) -> PlanContext {
            PlanContext::new(at(now), &self.settings, &self.mailer)
        }

        /// What the engine undoes when the clock went back to `now`.
        fn rewind_to(&mut self, now: &str) -> Rewound {
            let ctx = self.ctx(now);
            after_clock_went_back(&mut self.conn, &ctx).unwrap()
        }

        /// Claims and plans what is due at `now`, as a dispatcher pass does.
        fn claim_at(&mut self, now: &str) -> (usize, Vec<Round>) {
            let ctx = self.ctx(now);
            claim_and_plan(&mut self.conn, &ctx, 100).unwrap()
        }

        fn prefs(&self, change: impl FnOnce(&mut GlobalPrefs)) {
            let mut prefs = notify_prefs::global(&self.conn, self.user).unwrap();
            change(&mut prefs);
            notify_prefs::save_global(&self.conn, self.user, &prefs).unwrap();
        }

        fn ntfy(&self) -> i64 {
            channel_store::insert(
                &self.conn,
                &channel_store::NewChannel {
                    user_id: self.user,
                    kind: "ntfy",
                    name: "Phone",
                    config: &json!({ "server_url": "https://ntfy.example.org", "topic": "kim-pills" }),
                    secret: None,
                    state: "active",
                    link_code_hash: None,
                    link_expires_at: None,
                    now: "2026-03-02T06:00:00.000Z",
                },
            )
            .unwrap()
        }

        /// The 08:00 dose reminder of 2 March.
        fn reminder(&self) -> reminders::Reminder {
            let (all, _) = reminders::page(&self.conn, self.user, None, 10, 0).unwrap();
            all.into_iter()
                .find(|r| r.scheduled_time.to_string().starts_with("2026-03-02T08:00"))
                .expect("the 08:00 reminder is planned")
        }

        /// The history entries of 2 March.
        fn day_entries(&self) -> Vec<history::Entry> {
            history::between(
                &self.conn,
                self.user,
                "2026-03-02T00:00:00Z",
                "2026-03-03T00:00:00Z",
            )
            .unwrap()
        }

        fn deliveries(&self) -> Vec<deliveries::Delivery> {
            deliveries::page(&self.conn, self.user, None, None, 50, 0)
                .unwrap()
                .0
        }
    }

    #[test]
    fn a_reminder_no_device_takes_is_retried_and_the_history_says_why() {
        let mut w = world(false);
        let ctx = w.ctx("2026-03-02T07:45:00Z");
        let (claimed, rounds) = claim_and_plan(&mut w.conn, &ctx, 100).unwrap();
        assert_eq!((claimed, rounds.len()), (1, 1));
        let round = &rounds[0];
        assert_eq!(round.content.title, "Time for Aspirin");
        assert!(round.content.body.contains("2 tablets"), "{}", round.content.body);
        assert!(
            round
                .content
                .take_url
                .as_deref()
                .unwrap()
                .contains("/notifications/take/")
        );

        let recorded = record_results(
            &mut w.conn,
            &ctx,
            &[],
            vec![(rounds.into_iter().next().unwrap(), Pushes::default())],
        )
        .unwrap();
        assert_eq!(recorded.reports[0][0].code, "push_no_device");
        let history = w.deliveries();
        assert_eq!(history.len(), 1);
        assert_eq!(history[0].result, "failed");
        assert_eq!(
            history[0].error.as_deref(),
            Some("no device is subscribed to push notifications")
        );
        // Not given up: tried again later (`reminders.retry_attempts`), with the reason kept.
        let reminder = w.reminder();
        assert_eq!(reminder.status, ReminderStatus::Scheduled);
        assert!(
            reminder
                .failure_reason
                .unwrap()
                .contains("no device is subscribed")
        );
        // Nothing is due again before the backoff.
        let (again, _) = claim_and_plan(&mut w.conn, &ctx, 100).unwrap();
        assert_eq!(again, 0);
    }

    #[test]
    fn a_dose_logged_before_its_reminder_cancels_it_instead_of_sending_it() {
        let mut w = world(false);
        let now = at("2026-03-02T07:40:00Z");
        let access = access::medication(&w.conn, w.user, MedicationId(w.medication)).unwrap();
        let dose = doses::DoseRequest {
            status: DoseStatus::Taken,
            taken: Some(now),
            quantity: None,
            dosage_unit: None,
            dosage: None,
            dosage_id: None,
            scheduled_time: None,
            affect_inventory: false,
            confirm: false,
        };
        doses::log(&w.conn, &access, MedicationId(w.medication), dose, now).unwrap();
        let (_, rounds) = w.claim_at("2026-03-02T07:45:00Z");
        assert!(rounds.is_empty());
        let reminder = w.reminder();
        assert_eq!(reminder.status, ReminderStatus::Cancelled);
        assert_eq!(
            reminder.failure_reason.as_deref(),
            Some("The dose was already logged")
        );
        assert!(w.deliveries().is_empty(), "nothing was sent");
    }

    #[test]
    fn a_reminder_first_found_after_the_catch_up_window_is_not_sent_hours_late() {
        let mut w = world(false);
        // The server was off from before 07:45 until 09:00 (catch-up: 60 minutes).
        let (_, rounds) = w.claim_at("2026-03-02T09:00:00Z");
        assert!(rounds.is_empty());
        let reminder = w.reminder();
        assert_eq!(reminder.status, ReminderStatus::Failed);
        assert_eq!(reminder.failure_reason.as_deref(), Some("expired"));
    }

    #[test]
    fn a_channel_round_is_queued_once_with_its_take_link_and_waits_for_the_channel() {
        let mut w = world(false);
        let channel = w.ntfy();
        w.prefs(|p| p.delivery_methods = vec![Method::Channel(channel)]);
        let ctx = w.ctx("2026-03-02T07:45:00Z");
        let (_, rounds) = claim_and_plan(&mut w.conn, &ctx, 100).unwrap();
        let round = rounds.into_iter().next().unwrap();
        assert_eq!(round.queued_channels.len(), 1);
        assert_eq!(round.queued_channels[0].code, "channel_queued");
        // Planning the same round again (a crash before the commit of its results) adds
        // no second message.
        let again = plan_one(&mut w.conn, round.id, &round.claim, &ctx)
            .unwrap()
            .unwrap();
        assert_eq!(again.number, round.number);
        let queued = channel_store::claim_due(&w.conn, Stamp::from(ctx.now), 10).unwrap();
        assert_eq!(queued.len(), 1);
        let send = &queued[0];
        assert_eq!(send.idempotency_key, format!("pillbox{channel}r{}", round.id));
        let message: Message = serde_json::from_value(send.message.clone()).unwrap();
        assert_eq!(message.title, "Time for Aspirin");
        assert_eq!(message.labels.taken, "Taken");
        let token = round.content.token.clone().unwrap();
        assert_eq!(
            message.take_api.as_deref(),
            Some(format!("{}/api/notifications/take/{token}", w.settings.link_base()).as_str())
        );
        assert!(message.snooze);

        record_results(&mut w.conn, &ctx, &[], vec![(round, Pushes::default())]).unwrap();
        // The channel decides: no failure recorded and the reminder is neither sent nor failed.
        assert!(w.deliveries().is_empty());
        let reminder = w.reminder();
        assert_eq!(reminder.status, ReminderStatus::Scheduled);
        assert_eq!(reminder.failure_reason, None);
    }

    #[test]
    fn hidden_names_stay_out_of_the_reminder_and_of_every_channel_message() {
        let mut w = world(false);
        let channel = w.ntfy();
        w.prefs(|p| {
            p.delivery_methods = vec![Method::Channel(channel)];
            p.hide_medication_names = true;
        });
        let ctx = w.ctx("2026-03-02T07:45:00Z");
        let (_, rounds) = claim_and_plan(&mut w.conn, &ctx, 100).unwrap();
        let round = &rounds[0];
        assert!(!round.content.title.contains("Aspirin") && !round.content.body.contains("Aspirin"));
        let queued = channel_store::claim_due(&w.conn, Stamp::from(ctx.now), 10).unwrap();
        let text = queued[0].message.to_string();
        assert!(!text.contains("Aspirin"), "{text}");
        assert_eq!(queued[0].message["data"]["medication"], serde_json::Value::Null);
    }

    #[test]
    fn every_method_switched_off_fails_the_reminder_visibly() {
        let mut w = world(false);
        w.prefs(|p| p.push_enabled = false);
        let (_, rounds) = w.claim_at("2026-03-02T07:45:00Z");
        assert!(rounds.is_empty());
        let reminder = w.reminder();
        assert_eq!(reminder.status, ReminderStatus::Failed);
        assert!(
            reminder
                .failure_reason
                .unwrap()
                .starts_with("No delivery method is turned on")
        );
        let history = w.deliveries();
        assert_eq!(history.len(), 1);
        assert_eq!(history[0].result, "failed");
    }

    #[tokio::test]
    async fn when_no_device_takes_the_push_the_chosen_fallback_queues_one_email() {
        let mut w = world(true);
        w.prefs(|p| {
            p.email_enabled = true;
            p.email_fallback = true;
        });
        let ctx = w.ctx("2026-03-02T07:45:00Z");
        let (_, rounds) = claim_and_plan(&mut w.conn, &ctx, 100).unwrap();
        let round = rounds.into_iter().next().unwrap();
        let recorded = record_results(&mut w.conn, &ctx, &[], vec![(round, Pushes::default())]).unwrap();
        assert!(recorded.fallback_queued);
        let codes: Vec<&str> = recorded.reports[0].iter().map(|r| r.code).collect();
        assert_eq!(codes, ["push_no_device", "fallback_queued"]);
        let mails = outbox::claim_due(&w.conn, Stamp::from(ctx.now), 10).unwrap();
        assert_eq!(mails.len(), 1);
        assert_eq!(mails[0].recipient, "kim@example.org");
        assert!(mails[0].subject.contains("Aspirin"));
        // The mail decides the reminder: it is not failed while the mail is on its way.
        assert_eq!(w.reminder().status, ReminderStatus::Scheduled);
    }

    #[test]
    fn an_overdue_dose_is_recorded_missed_once() {
        let mut w = world(false);
        // Grace: 60 minutes after 08:00.
        assert_eq!(
            record_missed_batch(&mut w.conn, at("2026-03-02T08:59:00Z")).unwrap(),
            (0, 0)
        );
        assert_eq!(
            record_missed_batch(&mut w.conn, at("2026-03-02T09:01:00Z")).unwrap(),
            (1, 1)
        );
        assert_eq!(
            record_missed_batch(&mut w.conn, at("2026-03-02T09:02:00Z")).unwrap(),
            (0, 0)
        );
        let entries = w.day_entries();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].status, DoseStatus::Missed);
        assert!(entries[0].taken.to_string().starts_with("2026-03-02T08:00"));
        assert!(!entries[0].affect_inventory, "a missed dose moves no stock");
    }

    /// A Pi whose clock ran three hours ahead (a bad RTC) until NTP set it back.
    #[test]
    fn a_clock_set_back_withdraws_a_missed_record_made_too_early_and_reminds_on_time() {
        let mut w = world(false);
        // At a real 07:30 the clock says 10:30: a pass records the 08:00 dose "missed" (its
        // grace ended at 09:00), and then its 07:45 reminder is not sent: answered first.
        assert_eq!(
            record_missed_batch(&mut w.conn, at("2026-03-02T10:30:00Z")).unwrap(),
            (1, 1)
        );
        let (_, rounds) = w.claim_at("2026-03-02T10:30:00Z");
        assert!(rounds.is_empty());
        assert_eq!(w.reminder().status, ReminderStatus::Cancelled);
        assert_eq!(w.day_entries().len(), 1);

        // NTP sets it back to 07:30.
        let rewound = w.rewind_to("2026-03-02T07:30:00Z");
        assert_eq!(
            rewound,
            Rewound {
                misses: 1,
                ..Rewound::default()
            }
        );
        assert!(w.day_entries().is_empty(), "no dose stays missed before its time");
        let reminder = w.reminder();
        assert_eq!(reminder.status, ReminderStatus::Scheduled);
        assert_eq!(reminder.failure_reason, None);
        // The reminder goes out at its time, once, and the dose is missed only after its grace.
        assert!(w.claim_at("2026-03-02T07:44:00Z").1.is_empty());
        assert_eq!(w.claim_at("2026-03-02T07:45:00Z").1.len(), 1);
        assert_eq!(
            record_missed_batch(&mut w.conn, at("2026-03-02T08:59:00Z")).unwrap(),
            (0, 0)
        );
        assert_eq!(
            record_missed_batch(&mut w.conn, at("2026-03-02T09:01:00Z")).unwrap(),
            (1, 1)
        );
        // Nothing more to undo at the right time.
        let again = w.rewind_to("2026-03-02T09:02:00Z");
        assert_eq!(again, Rewound::default());
        assert_eq!(w.day_entries().len(), 1);
    }

    #[test]
    fn a_clock_set_back_replans_a_reminder_that_expired_unsent_but_keeps_what_still_holds() {
        let mut w = world(false);
        // Ahead by three hours: the 07:45 reminder expires; nothing is recorded missed yet.
        assert!(w.claim_at("2026-03-02T10:30:00Z").1.is_empty());
        assert_eq!(w.reminder().status, ReminderStatus::Failed);
        // Set back to a time still more than the catch-up window after 07:45: it stays
        // expired, as it would have had the server been off until then.
        let kept = w.rewind_to("2026-03-02T08:46:00Z");
        assert_eq!(kept, Rewound::default());
        assert_eq!(w.reminder().status, ReminderStatus::Failed);
        // Set back to 07:30: it is planned again and goes out at 07:45.
        let rewound = w.rewind_to("2026-03-02T07:30:00Z");
        assert_eq!(
            rewound,
            Rewound {
                expired: 1,
                ..Rewound::default()
            }
        );
        assert_eq!(w.reminder().status, ReminderStatus::Scheduled);
        assert_eq!(w.claim_at("2026-03-02T07:45:00Z").1.len(), 1);
    }

    #[test]
    fn a_missed_dose_a_person_recorded_stays_whatever_the_clock_does() {
        let mut w = world(false);
        let medication = medications::find(&w.conn, w.user, w.medication).unwrap().unwrap();
        let person = doses::logger(&w.conn, w.user).unwrap();
        doses::record_dose(
            &w.conn,
            w.user,
            &medication,
            doses::NewDose {
                status: DoseStatus::Missed,
                taken: at("2026-03-02T08:00:00Z"),
                quantity: medication.default_quantity,
                dosage_unit: medication.unit.clone(),
                dosage: None,
                dosage_id: Some(w.reminder().id),
                answer_nearest: false,
                affect_inventory: false,
                logged_by: Some(person),
            },
            at("2026-03-02T10:30:00Z"),
        )
        .unwrap();
        let rewound = w.rewind_to("2026-03-02T07:30:00Z");
        assert_eq!(rewound, Rewound::default());
        let entries = w.day_entries();
        assert_eq!(entries.len(), 1, "what a person recorded is theirs");
    }

    #[test]
    fn recovery_releases_what_a_killed_server_held() {
        let mut w = world(false);
        let (_, rounds) = w.claim_at("2026-03-02T07:45:00Z");
        assert_eq!(rounds.len(), 1);
        // Killed before the results: the claim is released and the reminder goes out again.
        let recovered = recover(&mut w.conn).unwrap();
        assert_eq!(recovered.claims, 1);
        let (claimed, _) = w.claim_at("2026-03-02T07:46:00Z");
        assert_eq!(claimed, 1);
    }
}

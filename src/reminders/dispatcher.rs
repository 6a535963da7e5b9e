//! The dispatcher (DESIGN §4): every tick it claims the reminders that need it, delivers
//! them over the person's channels, records every attempt, retries with backoff, repeats
//! unanswered reminders and falls back to e-mail when every push failed.
//!
//! A pass is a pipeline, so that one slow device never holds up anyone else's reminder:
//! claiming and planning a batch is one transaction (the take links, the queued e-mails and
//! a note of each push about to go out are written there), every push is its own task
//! (at most `PUSHES_AT_ONCE` at a time), and results are written as they come in, many per
//! transaction. E-mail goes through the queue (`mail_queue`), never inline. Each push
//! carries a Topic of its reminder and round, and each round's pushes are noted before and
//! after, so that a server killed mid-send resends only what it cannot know went out, and
//! the push service replaces such a repeat instead of showing it twice.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension};
use serde_json::json;
use tokio::sync::{Mutex, Semaphore, mpsc};
use tokio::task::JoinSet;

use super::channel_queue::ChannelQueue;
use super::channels::{Message, Priority};
use super::heartbeat::Heartbeat;
use super::mail_queue::MailQueue;
use super::messages::{self, Content, Formats};
use super::push::{PushOutcome, Pusher};
use crate::clock::{self, Clock};
use crate::config::Settings;
use crate::db::{Db, DbError};
use crate::domain::notification::{ReminderKind, ReminderStatus};
use crate::domain::schedule;
use crate::mailer::Mailer;
use crate::security::codes;
use crate::services::planner;
use crate::store::channels::{self as channel_store, Channel, NewSend};
use crate::store::deliveries::{self, NewDelivery};
use crate::store::notify_prefs::{self, GlobalPrefs, Method};
use crate::store::outbox::{self, MailKind, MailState, NewMail, ReminderRound};
use crate::store::push_subscriptions::{self, Subscription};
use crate::store::reminders::{self, Job};
use crate::store::{medications, people, settings};

/// Reminders claimed and planned per transaction. A new batch is claimed while fewer than
/// this many are still being sent, so planning overlaps sending.
const BATCH: i64 = 100;
/// Pushes in flight at once, over all reminders.
const PUSHES_AT_ONCE: usize = 64;
/// A claim outlives any sending (push timeouts included). A server that stops holding
/// claims releases them at its next start (`release_claims`).
const CLAIM_MINUTES: i64 = 10;
/// Take links work until this long after the dose time (a carer's, after the alert).
pub(super) const TAKE_LINK_HOURS: i64 = 24;
/// Mails done (accepted or given up) are forgotten after this long.
const KEEP_DONE_MAILS_DAYS: i64 = 7;
/// Doses whose grace ended longer ago than this are not recorded as missed any more: a
/// server that was off for days does not fill the history at its start, and the check
/// reads a bounded range.
const MISSED_LOOKBACK_HOURS: i64 = 24;
/// Overdue doses recorded per transaction.
const MISSED_BATCH: i64 = 200;
/// Withdrawals sent per pass of the withdrawal queue.
const WITHDRAWALS_BATCH: i64 = 200;

pub struct Engine {
    pub db: Db,
    pub mailer: Arc<Mailer>,
    pub pusher: Pusher,
    pub settings: Arc<Settings>,
    /// What "now" is for planning and sending: the server's clock, which tests move.
    pub clock: Clock,
    /// The e-mail queue, which sends every reminder e-mail.
    pub mail: Arc<MailQueue>,
    /// The channel queue, which sends to ntfy, Gotify, Telegram and webhooks.
    pub channels: Arc<ChannelQueue>,
    /// Held by a dispatcher pass, so that passes never overlap.
    ticking: Mutex<()>,
    /// Beats when a pass ends well (read by /health).
    pub heartbeat: Heartbeat,
    /// A push task exists only with a permit, so a burst never holds more than
    /// `PUSHES_AT_ONCE` requests (and their buffers) in memory.
    pub(super) pushes: Arc<Semaphore>,
    /// Set when the server stops: the pass under way claims nothing more and ends once
    /// what it has sent is recorded.
    stopping: AtomicBool,
    /// Held while withdrawals are being sent, so that one sender empties the queue.
    withdrawing: Mutex<()>,
    /// The Telegram bot's user name, once `getMe` has answered (the links people open).
    pub telegram_username: std::sync::OnceLock<String>,
    /// Some device was sent a reminder (since the start, or before it): only then can a
    /// handled reminder have withdrawals, so logging a dose on a server without push
    /// costs no look at the queue.
    pub(super) pushed_reminders: AtomicBool,
}

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

    fn new(channel: Method, code: &'static str, params: serde_json::Value) -> ChannelReport {
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

    fn failed(channel: Method, code: &'static str, error: String, unavailable: bool) -> ChannelReport {
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
    let Some((email, email_verified)) = conn
        .prepare_cached("SELECT email, email_verified FROM users WHERE id = ?1")?
        .query_row([user_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, bool>(1)?))
        })
        .optional()?
    else {
        return Ok(None);
    };
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
    },
}

/// A claimed reminder's delivery round, planned and being sent.
struct Round {
    id: i64,
    claim: String,
    recipient: Box<Recipient>,
    reminder_kind: ReminderKind,
    attempts: i64,
    repeats_sent: i64,
    repeat: bool,
    /// 0 for the first sending (and its retries), n for the n-th repeat.
    number: i64,
    kind: &'static str,
    medication_name: String,
    content: Content,
    channels: Vec<Method>,
    /// Subscriptions a server before a crash already reached in this round.
    already: Vec<i64>,
    /// The e-mail channel's report when e-mail is one of the channels (queued, or why not).
    email: Option<ChannelReport>,
    /// The reports of the person's channels among the methods (queued, or why not).
    queued_channels: Vec<ChannelReport>,
    followups: Followups,
}

/// What a round's pushes came to.
#[derive(Debug, Default)]
struct Pushes {
    delivered: Vec<i64>,
    gone: Vec<i64>,
    errors: Vec<String>,
}

/// News from the pushes of a pass.
enum Event {
    /// A push service accepted a round's push: noted at once, so a crash does not resend it.
    Sent {
        reminder_id: i64,
        number: i64,
        subscription_id: i64,
    },
    /// Every push of a round has its answer.
    Done(Box<(Round, Pushes)>),
}

/// What planning needs besides the connection.
#[derive(Clone)]
struct PlanContext {
    now: DateTime<Utc>,
    catch_up: Duration,
    link_base: String,
    mailer: Arc<Mailer>,
    settings: Arc<Settings>,
}

/// The Web Push Topic of a reminder's round: URL-safe characters, at most 32 of them.
fn topic(reminder_id: i64, number: i64) -> String {
    format!("r{reminder_id}n{number}")
}

impl Engine {
    pub fn new(db: Db, mailer: Arc<Mailer>, pusher: Pusher, settings: Arc<Settings>, clock: Clock) -> Engine {
        Engine {
            mail: MailQueue::new(db.clone(), Arc::clone(&mailer), clock.clone()),
            channels: ChannelQueue::new(
                db.clone(),
                clock.clone(),
                Arc::clone(&settings),
                Arc::clone(&mailer),
            ),
            db,
            mailer,
            pusher,
            settings,
            clock,
            ticking: Mutex::new(()),
            heartbeat: Heartbeat::new(),
            pushes: Arc::new(Semaphore::new(PUSHES_AT_ONCE)),
            stopping: AtomicBool::new(false),
            withdrawing: Mutex::new(()),
            pushed_reminders: AtomicBool::new(false),
            telegram_username: std::sync::OnceLock::new(),
        }
    }

    /// The Telegram bot's user name, when Telegram is set up and the bot answered.
    pub fn telegram_username(&self) -> Option<&str> {
        self.telegram_username.get().map(String::as_str)
    }

    fn link(&self, path: &str) -> String {
        format!("{}{path}", self.settings.link_base())
    }

    fn context(&self, now: DateTime<Utc>) -> PlanContext {
        PlanContext {
            now,
            catch_up: Duration::minutes(i64::from(self.settings.reminders.catch_up_minutes)),
            link_base: self.settings.link_base(),
            mailer: Arc::clone(&self.mailer),
            settings: Arc::clone(&self.settings),
        }
    }

    /// At start, before the first pass: releases the claims and mails a stopped or killed
    /// server left (the data directory is locked, so they are nobody's now).
    pub async fn recover(&self) -> Result<(), DbError> {
        let (claims, mails, pushes, shown) = self
            .db
            .write(|conn| {
                let tx = conn.transaction()?;
                let claims = reminders::release_claims(&tx)?;
                let mails = outbox::requeue_in_doubt(&tx)? + channel_store::requeue_in_doubt(&tx)?;
                let pushes = deliveries::pushes_in_doubt(&tx)?;
                let shown = reminders::shown_anywhere(&tx)?;
                tx.commit()?;
                Ok::<_, DbError>((claims, mails, pushes, shown))
            })
            .await?;
        if shown {
            self.pushed_reminders.store(true, Ordering::Relaxed);
        }
        if claims + mails > 0 || pushes > 0 {
            tracing::warn!(
                "the last run stopped while sending: {claims} reminders go out again \
                 ({pushes} pushes whose answer was lost are resent with the same topic), \
                 {mails} e-mails are back in the queue"
            );
        }
        Ok(())
    }

    /// A dispatcher pass unless one is running (then `None`): a timer's late pass skips.
    pub async fn try_tick(self: &Arc<Self>) -> Option<Result<usize, DbError>> {
        let _pass = self.ticking.try_lock().ok()?;
        Some(self.tick().await.inspect(|_| self.heartbeat.beat()))
    }

    /// A dispatcher pass once the one running (if any) has ended: when it returns,
    /// everything due by then has been handled.
    pub async fn tick_now(self: &Arc<Self>) -> Result<usize, DbError> {
        let _pass = self.ticking.lock().await;
        self.tick().await.inspect(|_| self.heartbeat.beat())
    }

    /// Stops claiming, then waits up to `within` for a running pass to end (once its sends
    /// under way have their answers); false when it is still sending.
    pub async fn finish_pass(&self, within: std::time::Duration) -> bool {
        self.stopping.store(true, Ordering::Release);
        tokio::time::timeout(within, self.ticking.lock()).await.is_ok()
    }

    /// One dispatcher pass: claims and delivers everything due now. Returns how many
    /// reminders it handled.
    async fn tick(self: &Arc<Self>) -> Result<usize, DbError> {
        let missed = self.record_missed().await?;
        // After the grace pass: a dose it recorded missed is one carers hear about.
        let escalated = self.escalate().await?;
        let (events_out, mut events) = mpsc::unbounded_channel();
        let mut handled = 0;
        let mut sending = 0usize;
        let mut more = true;
        let mut finished = Vec::new();
        loop {
            if more && self.stopping.load(Ordering::Acquire) {
                // Stopping: what is not claimed yet stays due for the next start.
                more = false;
            }
            if more && sending < BATCH as usize {
                let (claimed, rounds) = self.claim_and_plan(BATCH).await?;
                handled += claimed;
                more = claimed as i64 == BATCH;
                for round in rounds {
                    sending += 1;
                    let engine = Arc::clone(self);
                    let events = events_out.clone();
                    tokio::spawn(async move {
                        let pushes = engine.push_round(&round, Some(&events)).await;
                        let _ = events.send(Event::Done(Box::new((round, pushes))));
                    });
                }
            }
            if sending == 0 {
                if more {
                    continue;
                }
                break;
            }
            // Everything that came in while the last transaction ran goes into the next.
            let mut sent = Vec::new();
            let first = events.recv().await;
            for event in first
                .into_iter()
                .chain(std::iter::from_fn(|| events.try_recv().ok()))
            {
                match event {
                    Event::Sent {
                        reminder_id,
                        number,
                        subscription_id,
                    } => sent.push((reminder_id, number, subscription_id)),
                    Event::Done(done) => {
                        sending -= 1;
                        finished.push(*done);
                    }
                }
            }
            self.record(sent, std::mem::take(&mut finished)).await?;
        }
        let now = self.clock.now();
        let keep_mails_since = clock::stamp(now - Duration::days(KEEP_DONE_MAILS_DAYS));
        let now = clock::stamp(now);
        self.db
            .write(move |conn| {
                reminders::prune_take_tokens(conn, &now)?;
                outbox::prune(conn, &keep_mails_since)?;
                channel_store::prune(conn, &keep_mails_since)?;
                Ok::<_, DbError>(())
            })
            .await?;
        // A stopping server leaves them queued for its next start rather than wait on pushes.
        if !self.stopping.load(Ordering::Acquire) {
            self.send_withdrawals().await?;
        }
        Ok(handled + missed + escalated)
    }

    /// Records as missed every planned dose whose grace ran out unlogged (DESIGN §4): a
    /// history entry `missed` at the dose's time, moving no stock, that answers the
    /// reminder, so it is never recorded twice (the entry and the answer are one
    /// transaction) and the devices showing it get a withdrawal. Returns how many.
    async fn record_missed(&self) -> Result<usize, DbError> {
        let mut recorded = 0;
        loop {
            let now = self.clock.now();
            let (found, done) = self
                .db
                .write(move |conn| {
                    let tx = conn.transaction()?;
                    let from = now
                        - Duration::hours(MISSED_LOOKBACK_HOURS)
                        - Duration::minutes(i64::from(schedule::MAX_GRACE_MINUTES));
                    let overdue = reminders::overdue(
                        &tx,
                        &clock::stamp(from),
                        &clock::stamp(now),
                        schedule::DEFAULT_GRACE_MINUTES,
                        MISSED_BATCH,
                    )?;
                    let mut done = 0;
                    for dose in &overdue {
                        done += usize::from(record_one_missed(&tx, dose, now)?);
                    }
                    tx.commit()?;
                    Ok::<_, DbError>((overdue.len(), done))
                })
                .await?;
            recorded += done;
            if (found as i64) < MISSED_BATCH {
                break;
            }
        }
        // Their withdrawals go out at the end of the pass.
        Ok(recorded)
    }

    /// Sends the queued withdrawals in the background if there are any (a cheap read, also
    /// in the background): a request that handled a reminder waits for neither.
    pub fn wake_withdrawals_if_any(self: &Arc<Self>) {
        // Channels showing a handled reminder have its last word queued.
        self.channels.wake();
        if !self.pushed_reminders.load(Ordering::Relaxed) {
            return;
        }
        let engine = Arc::clone(self);
        tokio::spawn(async move {
            let pending = engine
                .db
                .read(|conn| Ok::<_, DbError>(reminders::has_withdrawals(conn)?))
                .await;
            if matches!(pending, Ok(true))
                && let Err(e) = engine.send_withdrawals().await
            {
                tracing::warn!("withdrawing handled reminders failed: {e}");
            }
        });
    }

    /// Pushes every queued withdrawal once (best effort: a failure is not retried, the
    /// notification then stays until the person dismisses it). The Topic is the one the
    /// reminder's round went with, so a push service that still holds the reminder
    /// replaces it.
    pub async fn send_withdrawals(self: &Arc<Self>) -> Result<(), DbError> {
        let _sending = self.withdrawing.lock().await;
        loop {
            let batch = self
                .db
                .write(|conn| {
                    let tx = conn.transaction()?;
                    let batch = reminders::take_withdrawals(&tx, WITHDRAWALS_BATCH)?;
                    tx.commit()?;
                    Ok::<_, DbError>(batch)
                })
                .await?;
            let full = batch.len() as i64 == WITHDRAWALS_BATCH;
            let mut tasks = JoinSet::new();
            for w in batch {
                let permit = Arc::clone(&self.pushes).acquire_owned().await;
                let engine = Arc::clone(self);
                tasks.spawn(async move {
                    let _permit = permit;
                    let payload = messages::withdraw_payload(w.reminder_id, &w.outcome);
                    match engine
                        .pusher
                        .send(&w.subscription, &payload, Some(&w.topic))
                        .await
                    {
                        PushOutcome::Delivered => {}
                        PushOutcome::Gone(e) | PushOutcome::Failed(e) => {
                            tracing::debug!("a withdrawal of reminder {} was not sent: {e}", w.reminder_id);
                        }
                    }
                });
            }
            while tasks.join_next().await.is_some() {}
            if !full {
                return Ok(());
            }
        }
    }

    /// Claims up to `limit` due reminders and plans them, in one transaction. Returns how
    /// many were claimed and the rounds that have something to send.
    async fn claim_and_plan(&self, limit: i64) -> Result<(usize, Vec<Round>), DbError> {
        let ctx = self.context(self.clock.now());
        let (claimed, rounds) = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let claim = reminders::new_claim(&clock::stamp(ctx.now + Duration::minutes(CLAIM_MINUTES)));
                let ids = reminders::claim_due(&tx, &clock::stamp(ctx.now), &claim, limit)?;
                let mut rounds = Vec::with_capacity(ids.len());
                for id in &ids {
                    rounds.extend(plan_claimed(&tx, *id, &claim, &ctx)?);
                }
                tx.commit()?;
                Ok::<_, DbError>((ids.len(), rounds))
            })
            .await?;
        if rounds.iter().any(|r| r.email.as_ref().is_some_and(|e| e.queued)) {
            self.mailer.wake_queue();
        }
        if rounds.iter().any(|r| !r.queued_channels.is_empty()) {
            self.channels.wake();
        }
        Ok((claimed, rounds))
    }

    /// Sends a round's pushes, each subscription at once, and reports each accepted one
    /// to `events` as soon as it is.
    async fn push_round(
        self: &Arc<Self>,
        round: &Round,
        events: Option<&mpsc::UnboundedSender<Event>>,
    ) -> Pushes {
        let mut pushes = Pushes {
            delivered: round.already.clone(),
            ..Pushes::default()
        };
        if !round.channels.contains(&Method::Push) {
            return pushes;
        }
        let payload: Arc<[u8]> = round.content.push_payload().into();
        let topic: Arc<str> = topic(round.id, round.number).into();
        let mut tasks = JoinSet::new();
        for subscription in &round.recipient.subscriptions {
            if round.already.contains(&subscription.id) {
                continue;
            }
            let permit = Arc::clone(&self.pushes).acquire_owned().await;
            let engine = Arc::clone(self);
            let (subscription, payload, topic) =
                (subscription.clone(), Arc::clone(&payload), Arc::clone(&topic));
            let events = events.cloned();
            let (reminder_id, number) = (round.id, round.number);
            tasks.spawn(async move {
                let outcome = match permit {
                    Ok(_permit) => engine.pusher.send(&subscription, &payload, Some(&topic)).await,
                    Err(e) => PushOutcome::Failed(e.to_string()),
                };
                if let (PushOutcome::Delivered, Some(events)) = (&outcome, events) {
                    let _ = events.send(Event::Sent {
                        reminder_id,
                        number,
                        subscription_id: subscription.id,
                    });
                }
                (subscription.id, outcome)
            });
        }
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok((id, PushOutcome::Delivered)) => pushes.delivered.push(id),
                Ok((id, PushOutcome::Gone(e))) => {
                    pushes.gone.push(id);
                    pushes.errors.push(e);
                }
                Ok((_, PushOutcome::Failed(e))) => pushes.errors.push(e),
                Err(e) => pushes.errors.push(format!("the push task failed: {e}")),
            }
        }
        pushes
    }

    /// Writes, in one transaction, the pushes accepted so far and the results of the rounds
    /// that have all their answers. Returns each finished round's channel reports.
    async fn record(
        &self,
        sent: Vec<(i64, i64, i64)>,
        finished: Vec<(Round, Pushes)>,
    ) -> Result<Vec<Vec<ChannelReport>>, DbError> {
        let ctx = self.context(self.clock.now());
        let (reports, queued, pushed) = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let at = clock::stamp(ctx.now);
                for (reminder_id, number, subscription_id) in sent {
                    deliveries::push_sent(&tx, reminder_id, number, subscription_id, &at)?;
                }
                let mut all = Vec::with_capacity(finished.len());
                let mut queued = false;
                let pushed = finished.iter().any(|(_, p)| !p.delivered.is_empty());
                for (round, pushes) in finished {
                    let (reports, fallback_queued) = finish_round(&tx, &round, pushes, &ctx)?;
                    queued |= fallback_queued;
                    all.push(reports);
                }
                tx.commit()?;
                Ok::<_, DbError>((all, queued, pushed))
            })
            .await?;
        if pushed {
            self.pushed_reminders.store(true, Ordering::Relaxed);
        }
        if queued {
            self.mailer.wake_queue();
        }
        Ok(reports)
    }

    /// Handles one claimed reminder from start to end (the "send now" action). Returns each
    /// channel's outcome, or `None` when there was nothing to send (answered, expired,
    /// cancelled meanwhile, or no method on).
    pub async fn dispatch(
        self: &Arc<Self>,
        id: i64,
        claim: &str,
    ) -> Result<Option<Vec<ChannelReport>>, DbError> {
        let ctx = self.context(self.clock.now());
        let claim = claim.to_owned();
        let round = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let round = plan_claimed(&tx, id, &claim, &ctx)?;
                tx.commit()?;
                Ok::<_, DbError>(round)
            })
            .await?;
        let Some(round) = round else {
            return Ok(None);
        };
        if round.email.as_ref().is_some_and(|e| e.queued) {
            self.mailer.wake_queue();
        }
        if !round.queued_channels.is_empty() {
            self.channels.wake();
        }
        let pushes = self.push_round(&round, None).await;
        Ok(self.record(Vec::new(), vec![(round, pushes)]).await?.pop())
    }

    /// Sends `content` now the way a reminder over `methods` goes, and reports each step:
    /// a method switched off, the push to each device, the e-mail, and the fallback to
    /// e-mail when no device took the push (sent, or skipped and why). Test notifications:
    /// the person is waiting for the outcome, so e-mail goes straight to the mail server,
    /// bounded by `smtp.timeout_seconds`.
    async fn deliver_now(
        &self,
        recipient: &Recipient,
        methods: &[Method],
        content: &Content,
    ) -> Vec<ChannelReport> {
        let channels = notify_prefs::channels(&recipient.prefs, methods);
        let mut reports: Vec<ChannelReport> = methods
            .iter()
            .filter(|m| !channels.contains(m))
            .map(|m| switched_off(&recipient.prefs, *m))
            .collect();
        if channels.contains(&Method::Push) {
            let push = self.push_now(recipient, content).await;
            let push_failed = !push.ok();
            reports.push(push);
            if push_failed {
                let fallback = match fallback_refused(recipient, &channels, self.mailer.is_configured()) {
                    None => Some(ChannelReport {
                        fallback: true,
                        ..self.email_now(recipient, content).await
                    }),
                    Some("email_chosen") => None,
                    Some(reason) => Some(fallback_skipped(reason)),
                };
                reports.extend(fallback);
            }
        }
        if channels.contains(&Method::Email) {
            reports.push(self.email_now(recipient, content).await);
        }
        reports.extend(test_channels(self, recipient, &channels).await);
        reports
    }

    async fn push_now(&self, recipient: &Recipient, content: &Content) -> ChannelReport {
        if recipient.subscriptions.is_empty() {
            return no_device();
        }
        let payload = content.push_payload();
        let mut pushes = Pushes::default();
        for subscription in &recipient.subscriptions {
            match self.pusher.send(subscription, &payload, None).await {
                PushOutcome::Delivered => pushes.delivered.push(subscription.id),
                PushOutcome::Gone(e) => {
                    pushes.gone.push(subscription.id);
                    pushes.errors.push(e);
                }
                PushOutcome::Failed(e) => pushes.errors.push(e),
            }
        }
        push_report(recipient.subscriptions.len(), pushes)
    }

    async fn email_now(&self, recipient: &Recipient, content: &Content) -> ChannelReport {
        if !recipient.email_verified && self.mailer.is_configured() {
            return unverified();
        }
        match self.mailer.send(&recipient.email, content.email()).await {
            Ok(()) => ChannelReport {
                detail: format!("Sent to {}", recipient.email),
                ..ChannelReport::new(Method::Email, "email_sent", json!({ "address": recipient.email }))
            },
            Err(crate::mailer::MailError::NotConfigured) => not_configured(),
            Err(other) => ChannelReport::failed(Method::Email, "email_failed", other.to_string(), false),
        }
    }

    /// Sends a test notification now and records it; used by the API and `pillbox send-test`.
    pub async fn send_test(&self, user_id: i64, methods: &[Method]) -> Result<Vec<ChannelReport>, DbError> {
        let recipient = self
            .db
            .read(move |conn| Ok::<_, DbError>(load_recipient(conn, user_id)?))
            .await?;
        let Some(recipient) = recipient else {
            return Ok(Vec::new());
        };
        let (title, body) = messages::test_body(&recipient.formats, self.clock.now());
        let content = Content {
            title,
            body,
            take_url: None,
            open_url: self.link("/notifications"),
            tag: "pillbox-test".into(),
            token: None,
            snooze: false,
            silent: !recipient.prefs.sound_enabled,
            vibrate: recipient.prefs.vibration_enabled,
            lang: recipient.formats.lang,
        };
        let reports = self.deliver_now(&recipient, methods, &content).await;
        let stored = reports.clone();
        let title = content.title.clone();
        let now = self.clock.now();
        self.db
            .write(move |conn| {
                let tx = conn.transaction()?;
                record(&tx, user_id, None, "test", &title, None, &stored, now)?;
                tx.commit()?;
                Ok::<_, DbError>(())
            })
            .await?;
        Ok(reports)
    }
}

/// The push channel's report when the account has no subscribed device.
fn no_device() -> ChannelReport {
    ChannelReport::failed(
        Method::Push,
        "push_no_device",
        "no device is subscribed to push notifications".into(),
        true,
    )
}

/// The report of a method whose global switch is off.
fn switched_off(prefs: &GlobalPrefs, method: Method) -> ChannelReport {
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
fn fallback_skipped(reason: &'static str) -> ChannelReport {
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
fn push_report(devices: usize, mut pushes: Pushes) -> ChannelReport {
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
        } => {
            let number = job.round_offset + job.repeats_sent + i64::from(repeat);
            let mut already = Vec::new();
            if channels.contains(&Method::Push) {
                let at = clock::stamp(ctx.now);
                for subscription in &recipient.subscriptions {
                    if deliveries::push_starting(conn, id, number, subscription.id, &at)? {
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
            };
            if round.channels.contains(&Method::Email) {
                round.email = Some(queue_mail(conn, &round, false, ctx)?);
            }
            round.queued_channels = queue_channels(conn, &round, &job, ctx)?;
            Ok(Some(round))
        }
    }
}

fn not_configured() -> ChannelReport {
    ChannelReport::failed(
        Method::Email,
        "email_unavailable",
        "E-mail is not configured on this server".into(),
        true,
    )
}

fn unverified() -> ChannelReport {
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
pub(super) struct RoundMail<'a> {
    pub user_id: i64,
    pub address: &'a str,
    pub content: &'a Content,
    pub round: ReminderRound<'a>,
}

/// Queues a round's e-mail (once per round: the queue keeps one mail per reminder and
/// round) with a Message-ID of its own and the retries of `reminders.*`. Returns whether it
/// was queued now.
pub(super) fn enqueue_round_mail(
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
    (kind != ReminderKind::LowStock && repeats_done < followups.times).then(|| clock::stamp(now + interval))
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
    let due = parse_instant(&dose.scheduled_time, now);
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
            affect_inventory: false,
            // Recorded by the engine, not by a person.
            logged_by: None,
        },
        now,
    )
    .map_err(|e| DbError::Task(format!("recording a missed dose failed: {e:?}")))?;
    Ok(true)
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
    if round.reminder_kind != ReminderKind::LowStock {
        let topic = topic(round.id, round.number);
        for report in reports.iter().filter(|r| r.channel == Method::Push) {
            for subscription in &report.delivered_to {
                reminders::shown_on(conn, round.id, *subscription, &topic)?;
            }
        }
        if let Some(outcome) = reminders::handled_since(conn, round.id, round.number)? {
            reminders::withdraw(conn, round.id, &outcome, &clock::stamp(now))?;
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
                &clock::stamp(now),
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
                let attempts = round.attempts + 1;
                let retry_at = (attempts < i64::from(ctx.settings.reminders.retry_attempts)).then(|| {
                    let base = i64::from(ctx.settings.reminders.retry_backoff_seconds);
                    let factor = 1_i64 << (attempts - 1).clamp(0, 20);
                    clock::stamp(now + Duration::seconds(base.saturating_mul(factor)))
                });
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
    let at = clock::stamp(now);
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
                attempted_at: &at,
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
            push_subscriptions::touch(conn, *id, &at)?;
        }
    }
    Ok(())
}

/// A stored instant; an unreadable one counts as `now`.
fn parse_instant(text: &str, now: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or(now)
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
            .as_deref()
            .is_some_and(|at| now - parse_instant(at, now) > catch_up);
        if job.reminder.answered_at.is_some()
            || job.repeats_sent >= followups.times
            || job.reminder.kind == ReminderKind::LowStock
            || late
        {
            return Ok(Plan::Finish("sent", None));
        }
    } else {
        if job.reminder.answered_at.is_some() {
            return Ok(Plan::Finish(
                "cancelled",
                Some("The dose was already logged".into()),
            ));
        }
        if job.attempts == 0 && now - parse_instant(&job.reminder.reminder_time, now) > catch_up {
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
    } else {
        if !recipient.prefs.reminders_enabled {
            return Ok(if repeat {
                Plan::Finish("sent", None)
            } else {
                Plan::Finish("cancelled", Some("Reminders are turned off".into()))
            });
        }
        let due = parse_instant(&job.reminder.scheduled_time, now);
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
    let methods = if job.reminder.kind == ReminderKind::LowStock {
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
            let from = job
                .reminder
                .reminder_time
                .as_str()
                .max(job.reminder.scheduled_time.as_str());
            let expires = parse_instant(from, due).max(due) + Duration::hours(TAKE_LINK_HOURS);
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
        snooze: true,
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
    })
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
    let event = if round.reminder_kind == ReminderKind::LowStock {
        "stock.low"
    } else {
        "reminder.due"
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
                give_up_at: &clock::stamp(ctx.now + Duration::hours(24)),
            },
        )?;
    }
    for method in &round.channels {
        let Some(channel_id) = method.channel_id() else {
            continue;
        };
        let Some(channel) = round.recipient.channels.iter().find(|c| c.id == channel_id) else {
            reports.push(ChannelReport::failed(
                *method,
                "channel_unavailable",
                "the channel was deleted".into(),
                true,
            ));
            continue;
        };
        if !channel.usable() {
            let why = match (channel.enabled, channel.state.as_str()) {
                (false, _) => "the channel is switched off",
                (_, "pending") => "the Telegram chat is not linked yet",
                _ => "the channel is disabled",
            };
            reports.push(ChannelReport {
                params: json!({ "name": channel.name, "kind": channel.kind, "state": channel.state, "enabled": channel.enabled, "detail": why }),
                ..ChannelReport::failed(*method, "channel_unavailable", format!("{}: {why}", channel.name), true)
            });
            continue;
        }
        let message = channel_message(round, job, &ctx.link_base);
        let webhook = channel.kind == "webhook";
        let key = if webhook {
            format!("msg_pillbox_r{}_n{}", round.id, round.number)
        } else {
            format!("pillbox{}r{}", channel.id, round.id)
        };
        let give_up = match webhook {
            true => ctx.now + Duration::hours(24),
            false => ctx.now + ctx.catch_up.max(Duration::minutes(5)),
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
                give_up_at: &clock::stamp(give_up),
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
    Message::of(
        &round.content,
        link_base,
        priority,
        json!({
            "reminder_id": round.id,
            "kind": job.reminder.kind,
            "round": round.number,
            "repeat": round.repeat,
            "medication": if hide { None } else { Some(&round.medication_name) },
            "medication_id": job.reminder.medication_id,
            "scheduled_time": job.reminder.scheduled_time,
        }),
    )
}

/// Sends a test message to the chosen channels now, one report each.
async fn test_channels(engine: &Engine, recipient: &Recipient, methods: &[Method]) -> Vec<ChannelReport> {
    let mut reports = Vec::new();
    for method in methods {
        let Some(id) = method.channel_id() else {
            continue;
        };
        let Some(channel) = recipient.channels.iter().find(|c| c.id == id) else {
            reports.push(ChannelReport::failed(
                *method,
                "channel_unavailable",
                "the channel was deleted".into(),
                true,
            ));
            continue;
        };
        if !channel.usable() {
            reports.push(ChannelReport {
                params: json!({ "name": channel.name, "kind": channel.kind, "state": channel.state, "enabled": channel.enabled }),
                ..ChannelReport::failed(*method, "channel_unavailable", format!("{} cannot be used now", channel.name), true)
            });
            continue;
        }
        let result = engine
            .channels
            .test(channel, &recipient.formats, &engine.settings.link_base())
            .await;
        let params = json!({ "name": channel.name, "kind": channel.kind, "detail": result.detail });
        reports.push(match result.ok {
            true => ChannelReport {
                detail: result.detail,
                ..ChannelReport::new(*method, "channel_sent", params)
            },
            false => ChannelReport {
                params,
                ..ChannelReport::failed(*method, "channel_failed", result.detail, false)
            },
        });
    }
    reports
}

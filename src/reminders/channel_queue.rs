//! The channel queue's worker: sends what `store::channels` holds to ntfy, Gotify, Telegram
//! and webhooks. Each send is bounded as a whole by `channels.timeout_seconds`; a channel
//! has at most `PER_CHANNEL` sends in flight, so one that never answers holds only its own
//! slots and delays no other channel or person. Failures are retried with backoff until the
//! message's `give_up_at`; a message cut off by a stop goes out again with the same key
//! (ntfy's sequence id, the webhook-id), which the receiver deduplicates.

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use serde_json::json;
use tokio::sync::{Notify, Semaphore, watch};
use tokio::task::{JoinHandle, JoinSet};

use super::channels::{self, Context, Labels, Message, Outcome, Outgoing, Priority, Request};
use crate::clock::{self, Clock};
use crate::config::Settings;
use crate::db::{Db, DbError, Stamp};
use crate::domain::notification::{MAX_RETRY_WAIT_SECONDS, ReminderStatus, within};
use crate::mailer::Mailer;
use crate::security::outbound::{Policy, Resolver};
use crate::services::messages::Formats;
use crate::services::rounds::{
    CLOCK_CORRECTED, RoundMail, enqueue_round_mail, followups, join_reasons, load_recipient, next_repeat,
};
use crate::store::channels::{self as store, Channel, QueuedSend};
use crate::store::deliveries::{self, NewDelivery};
use crate::store::outbox::ReminderRound;
use crate::store::{escalations, notify_prefs, outbox, reminders};

/// Sends in flight at once, over all channels.
const SENDING_AT_ONCE: usize = 32;
/// Sends in flight at once to one channel.
const PER_CHANNEL: usize = 2;
/// The longest the worker sleeps without looking at the queue (events queued by a request
/// that does not wake it wait at most this long).
const IDLE_LOOK: StdDuration = StdDuration::from_secs(5);
/// The first retry's wait; it doubles up to `MAX_BACKOFF_SECONDS`.
const FIRST_BACKOFF_SECONDS: i64 = 15;
const MAX_BACKOFF_SECONDS: i64 = 3600;

pub struct ChannelQueue {
    db: Db,
    clock: Clock,
    settings: Arc<Settings>,
    /// For the e-mail fallback of a reminder no channel took.
    mailer: Arc<Mailer>,
    /// For the person's URLs: names resolved through the policy, no redirects.
    guarded: reqwest::Client,
    /// For the operator's Telegram Bot API.
    plain: reqwest::Client,
    policy: Arc<Policy>,
    woken: Notify,
    channels: StdMutex<HashMap<i64, Arc<Semaphore>>>,
}

/// The running worker.
pub struct Worker {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Worker {
    /// Stops at once: sends in progress are cut off and go out again after the next start.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        if tokio::time::timeout(StdDuration::from_secs(2), self.task)
            .await
            .is_err()
        {
            tracing::warn!("the channel queue did not stop within 2 s");
        }
    }
}

/// A send with its channel's answer.
type Sent = (QueuedSend, Channel, Outcome);

/// The outcome of one send, as a test shows it.
#[derive(Debug, Clone)]
pub struct SendResult {
    pub ok: bool,
    pub detail: String,
}

impl ChannelQueue {
    pub fn new(db: Db, clock: Clock, settings: Arc<Settings>, mailer: Arc<Mailer>) -> Arc<ChannelQueue> {
        let policy = Arc::new(Policy::new(&settings.channels.allow_networks));
        let timeout = StdDuration::from_secs(u64::from(settings.channels.timeout_seconds.clamp(1, 120)));
        // The whole-operation limit (`deliver`) speaks first; the client's own is a backstop.
        let builder = || {
            reqwest::Client::builder()
                .timeout(timeout + StdDuration::from_secs(1))
                .connect_timeout(timeout)
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!("Pillbox/", env!("CARGO_PKG_VERSION")))
        };
        let guarded = builder()
            .dns_resolver(Arc::new(Resolver::new(Arc::clone(&policy))))
            .build()
            .unwrap_or_default();
        let plain = builder().build().unwrap_or_default();
        Arc::new(ChannelQueue {
            db,
            clock,
            settings,
            mailer,
            guarded,
            plain,
            policy,
            woken: Notify::new(),
            channels: StdMutex::new(HashMap::new()),
        })
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Something was queued: look now.
    pub fn wake(&self) {
        self.woken.notify_one();
    }

    pub fn start(self: &Arc<Self>) -> Worker {
        let (stop, stopped) = watch::channel(false);
        let queue = Arc::clone(self);
        let task = tokio::spawn(async move { queue.run(stopped).await });
        Worker { stop, task }
    }

    fn context(&self) -> Context {
        Context {
            telegram_api: self.settings.telegram.api_url.clone(),
            telegram_token: self.settings.telegram.bot_token.clone(),
        }
    }

    /// The worker: claims what is due (and prepares it) in one transaction, sends each
    /// message as its own task, and records the answers that have come in, many per
    /// transaction, so a burst costs a few commits rather than two per message.
    async fn run(self: Arc<Self>, mut stopped: watch::Receiver<bool>) {
        let mut sending: JoinSet<Sent> = JoinSet::new();
        let mut backoff = StdDuration::ZERO;
        loop {
            let free = SENDING_AT_ONCE.saturating_sub(sending.len());
            if free > 0 {
                match self.claim(free).await {
                    Ok(ready) => {
                        backoff = StdDuration::ZERO;
                        for (send, channel, out) in ready {
                            let queue = Arc::clone(&self);
                            sending.spawn(async move {
                                let outcome = queue.deliver(&channel, &out).await;
                                (send, channel, outcome)
                            });
                        }
                    }
                    Err(e) => {
                        backoff = (backoff * 2).clamp(StdDuration::from_secs(1), IDLE_LOOK);
                        tracing::error!("the channel queue cannot be read: {e}");
                    }
                }
            }
            let wait = if sending.len() < SENDING_AT_ONCE {
                self.until_next().await.max(backoff)
            } else {
                IDLE_LOOK
            };
            tokio::select! {
                _ = stopped.changed() => break,
                () = self.woken.notified() => {}
                Some(first) = sending.join_next(), if !sending.is_empty() => {
                    let mut done: Vec<Sent> = first.into_iter().collect();
                    while let Some(more) = sending.try_join_next() {
                        done.extend(more);
                    }
                    self.record(done).await;
                }
                () = tokio::time::sleep(wait) => {}
            }
        }
        sending.abort_all();
    }

    /// Takes up to `limit` due messages and prepares them, in one transaction: the ones no
    /// longer wanted are settled there, the others come back ready to send.
    async fn claim(&self, limit: usize) -> Result<Vec<(QueuedSend, Channel, Outgoing)>, DbError> {
        let now = self.clock.now();
        let link_base = self.settings.link_base();
        self.db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let mut ready = Vec::new();
                for send in store::claim_due(&tx, Stamp::from(now), limit)? {
                    if let Some((channel, out)) = prepare(&tx, &send, now, &link_base)? {
                        ready.push((send, channel, out));
                    }
                }
                tx.commit()?;
                Ok::<_, DbError>(ready)
            })
            .await
    }

    /// Records the answers of finished sends in one transaction.
    async fn record(&self, done: Vec<Sent>) {
        if done.is_empty() {
            return;
        }
        for (send, channel, outcome) in &done {
            if let Some(error) = outcome.error() {
                tracing::warn!(
                    send = send.id,
                    channel = channel.id,
                    "channel send attempt {} failed: {error}",
                    send.attempts + 1
                );
            }
        }
        let now = self.clock.now();
        let fallback = Fallback {
            mailer: Arc::clone(&self.mailer),
            settings: Arc::clone(&self.settings),
        };
        let recorded = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let mut mailed = false;
                for (send, channel, outcome) in &done {
                    mailed |= settle(&tx, send, channel, outcome, &fallback, now)?;
                }
                tx.commit()?;
                Ok::<_, DbError>(mailed)
            })
            .await;
        match recorded {
            Ok(true) => self.mailer.wake_queue(),
            Ok(false) => {}
            Err(e) => tracing::error!("the outcome of channel messages could not be recorded: {e}"),
        }
    }

    async fn until_next(&self) -> StdDuration {
        let next = self
            .db
            .read(|conn| Ok::<_, DbError>(store::next_due(conn)?))
            .await;
        let next = match next {
            Ok(Some(next)) => next,
            Ok(None) => return IDLE_LOOK,
            Err(e) => {
                tracing::error!("the channel queue cannot be read: {e}");
                return IDLE_LOOK;
            }
        };
        (next.instant() - self.clock.now())
            .to_std()
            .unwrap_or(StdDuration::ZERO)
            .min(IDLE_LOOK)
    }

    /// Waits until nothing is due by the server's clock and nothing is being sent, at most
    /// `within` (tests move the clock, then wait for what fell due); false when it is still busy.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub async fn drain(&self, within: StdDuration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let now = Stamp::from(self.clock.now());
            let busy = self
                .db
                .read(move |conn| Ok::<_, DbError>(store::busy(conn, now)?))
                .await
                .unwrap_or(false);
            if !busy {
                return true;
            }
            if tokio::time::Instant::now() > deadline {
                return false;
            }
            self.wake();
            tokio::time::sleep(StdDuration::from_millis(20)).await;
        }
    }

    fn channel_slots(&self, id: i64) -> Arc<Semaphore> {
        let mut map = self
            .channels
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(
            map.entry(id)
                .or_insert_with(|| Arc::new(Semaphore::new(PER_CHANNEL))),
        )
    }

    /// Sends one request for a channel, bounded as a whole by the timeout, and says what
    /// the answer means.
    pub async fn deliver(&self, channel: &Channel, out: &Outgoing) -> Outcome {
        let Some(protocol) = channels::protocol(&channel.kind) else {
            return Outcome::Refused {
                error: format!("unknown channel kind {}", channel.kind),
            };
        };
        let request = match protocol.request(&self.context(), channel, out) {
            Ok(request) => request,
            Err(error) => return Outcome::Refused { error },
        };
        if request.person_url
            && let Err(why) = self.policy.check_url(&request.url)
        {
            return Outcome::Refused {
                error: format!("the address is not allowed: {why}"),
            };
        }
        let slots = self.channel_slots(channel.id);
        let Ok(_slot) = slots.acquire_owned().await else {
            return Outcome::Retry {
                error: "the channel queue is stopping".into(),
                after: None,
            };
        };
        let limit = StdDuration::from_secs(u64::from(self.settings.channels.timeout_seconds.clamp(1, 120)));
        match tokio::time::timeout(limit, self.exchange(&request)).await {
            Ok(Ok((status, retry_after, body))) => protocol.classify(status, retry_after, &body),
            Ok(Err(error)) => Outcome::Retry { error, after: None },
            Err(_) => Outcome::Retry {
                error: format!("no answer within {} s", limit.as_secs()),
                after: None,
            },
        }
    }

    async fn exchange(&self, request: &Request) -> Result<(u16, Option<StdDuration>, Vec<u8>), String> {
        let client = if request.person_url {
            &self.guarded
        } else {
            &self.plain
        };
        let mut builder = client
            .request(request.method.clone(), &request.url)
            .body(request.body.clone());
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        let answer = builder.send().await.map_err(|e| describe(&e))?;
        let status = answer.status().as_u16();
        let retry_after = answer
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(StdDuration::from_secs);
        // An answer's body is read only as far as a classification needs.
        let body = answer
            .bytes()
            .await
            .map(|b| b.slice(..b.len().min(16 * 1024)).to_vec())
            .unwrap_or_default();
        Ok((status, retry_after, body))
    }

    /// Sends a test message to one of the user's channels now and says what it answered.
    pub async fn test(&self, channel: &Channel, formats: &Formats, link_base: &str) -> SendResult {
        let now = self.clock.now();
        let words = formats.words();
        let message = Message {
            title: words.test_title.into(),
            body: words.test_body.replace("{when}", &formats.date_time(now)),
            open_url: format!("{link_base}/notifications"),
            labels: Labels::of(formats.lang),
            data: json!({ "test": true }),
            ..Message::default()
        };
        let out = Outgoing {
            event: "test".into(),
            message,
            key: format!("msg_pillbox_test_{}_{}", channel.id, now.timestamp_millis()),
            replaces: None,
            timestamp: now.timestamp(),
        };
        let outcome = self.deliver(channel, &out).await;
        let result = match &outcome {
            Outcome::Delivered { .. } => SendResult {
                ok: true,
                detail: format!("{} took the test message", service_name(&channel.kind)),
            },
            other => SendResult {
                ok: false,
                detail: other.error().unwrap_or_default().to_owned(),
            },
        };
        let (channel_id, gone, text, at) = (
            channel.id,
            matches!(outcome, Outcome::Gone { .. }),
            result.detail.clone(),
            clock::stamp(now),
        );
        let _ = self
            .db
            .write(move |conn| {
                store::note_result(conn, channel_id, &text, &at)?;
                if gone {
                    store::set_state(conn, channel_id, "disabled", Some("gone"))?;
                }
                Ok::<_, DbError>(())
            })
            .await;
        result
    }
}

/// The words a person reads for a kind of channel.
pub fn service_name(kind: &str) -> &'static str {
    match kind {
        "ntfy" => "ntfy",
        "gotify" => "Gotify",
        "telegram" => "Telegram",
        _ => "The webhook",
    }
}

fn describe(e: &reqwest::Error) -> String {
    let head = if e.is_connect() {
        "could not connect".to_owned()
    } else if e.is_timeout() {
        "no answer in time".to_owned()
    } else {
        e.to_string()
    };
    match std::error::Error::source(e) {
        Some(cause) => format!("{head}: {}", super::push::error_chain(cause)),
        None => head,
    }
}

/// Looks at a claimed message before it goes out: its channel, whether the reminder still
/// wants it, and (for a handled reminder) the words that replace it. `None`: not sent.
fn prepare(
    conn: &Connection,
    send: &QueuedSend,
    now: DateTime<Utc>,
    link_base: &str,
) -> Result<Option<(Channel, Outgoing)>, DbError> {
    let at = clock::stamp(now);
    let Some(channel) = store::by_id(conn, send.channel_id)? else {
        return Ok(None);
    };
    let drop = |conn: &Connection, why: &str| -> Result<Option<(Channel, Outgoing)>, DbError> {
        store::attempt_failed(conn, send.id, &at, why, None)?;
        Ok(None)
    };
    if !channel.usable() {
        return drop(conn, "not sent: the channel is switched off or not linked");
    }
    let mut message: Message = serde_json::from_value(send.message.clone()).unwrap_or_default();
    let mut replaces = None;
    // A carer's alert goes out while it is wanted: a dose recorded missed still is; one
    // handled, or an alert withdrawn (the clock went back: the dose is not late after all),
    // is not.
    if send.event == "escalation.sent"
        && let Some(escalation_id) = send.escalation_id
        && !escalations::wanted(conn, escalation_id)?
    {
        return drop(
            conn,
            "not sent: the dose was handled first, or the alert was withdrawn",
        );
    }
    if send.event == "reminder.due"
        && let Some(reminder_id) = send.reminder_id
    {
        match reminders::job(conn, reminder_id)? {
            Some(job) if job.reminder.status == ReminderStatus::Cancelled => {
                return drop(conn, "not sent: the reminder was cancelled first");
            }
            Some(job) if job.reminder.answered_at.is_some() => {
                return drop(conn, "not sent: the dose was handled first");
            }
            Some(job) if send.round.is_some_and(|r| r < job.round_offset) => {
                return drop(conn, "not sent: the reminder was snoozed first");
            }
            Some(_) => {}
            None => return drop(conn, "not sent: the reminder is gone"),
        }
    }
    if send.event == "reminder.handled"
        && let Some(reminder_id) = send.reminder_id
    {
        let Some(recipient) = load_recipient(conn, send.user_id)? else {
            return drop(conn, "not sent: the account is gone");
        };
        let Some(handled) = store::handled_view(conn, reminder_id)? else {
            return drop(conn, "not sent: the reminder is gone");
        };
        let outcome = send
            .message
            .get("outcome")
            .and_then(|o| o.as_str())
            .unwrap_or("taken");
        message = Message {
            title: send.title.clone(),
            body: handled_text(&handled, outcome, &recipient.formats, now),
            open_url: format!("{link_base}/history"),
            labels: Labels::of(recipient.formats.lang),
            handled: true,
            priority: Priority::Default,
            data: json!({
                "reminder_id": reminder_id,
                "outcome": outcome,
                "medication": send.medication_name,
                "at": handled.at,
                "by": handled.by,
            }),
            ..Message::default()
        };
        replaces = store::remote_id_of(conn, channel.id, reminder_id)?;
    }
    Ok(Some((
        channel,
        Outgoing {
            event: send.event.clone(),
            message,
            key: send.idempotency_key.clone(),
            replaces,
            timestamp: now.timestamp(),
        },
    )))
}

/// "✓ Taken at 08:03 by Kim" in the person's language, zone and time format.
pub fn handled_text(
    handled: &store::Handled,
    outcome: &str,
    formats: &Formats,
    now: DateTime<Utc>,
) -> String {
    let words = formats.words();
    // Without a time of its own (a dose recorded missed), the moment it was handled: now.
    let time = |stamp: Option<Stamp>| {
        stamp
            .map_or(now, Stamp::instant)
            .with_timezone(&formats.tz)
            .format(formats.time)
            .to_string()
    };
    let status = handled.status.as_deref().unwrap_or(outcome);
    let mut text = match (outcome, status) {
        (CLOCK_CORRECTED, _) => return words.handled_corrected.to_owned(),
        ("snoozed", _) => words
            .handled_snoozed
            .replace("{time}", &time(handled.snoozed_until)),
        (_, "skipped") => words.handled_skipped.replace("{time}", &time(handled.at)),
        (_, "missed") => words.handled_missed.replace("{time}", &time(None)),
        _ => words.handled_taken.replace("{time}", &time(handled.at)),
    };
    if let (Some(by), false) = (&handled.by, outcome == "snoozed") {
        text.push_str(&words.handled_by.replace("{name}", by));
    }
    text
}

/// When a failed message is tried again, or `None` when it is given up.
fn retry_at(send: &QueuedSend, after: Option<StdDuration>, now: DateTime<Utc>) -> Option<String> {
    let backoff = FIRST_BACKOFF_SECONDS
        .saturating_mul(1_i64 << send.attempts.clamp(0, 20))
        .min(MAX_BACKOFF_SECONDS);
    let wait = after
        .and_then(|a| i64::try_from(a.as_secs()).ok())
        .map_or(backoff, |a| a.clamp(1, MAX_BACKOFF_SECONDS));
    // A dose's reminder is tried at least every 15 minutes (as its push and e-mail are), the
    // last time a minute before it is given up (its dose's grace).
    let wait = match send.event.as_str() {
        "reminder.due" => wait.min(MAX_RETRY_WAIT_SECONDS),
        _ => wait,
    };
    within(now + Duration::seconds(wait), send.give_up_at.instant(), now).map(clock::stamp)
}

/// What the e-mail fallback needs.
struct Fallback {
    mailer: Arc<Mailer>,
    settings: Arc<Settings>,
}

/// Records an attempt: the queue row, the delivery history of a reminder's message, the
/// channel's last result, and for a message that decides its reminder's round, the reminder
/// (a failure nothing else made up for queues the e-mail fallback). Returns whether an
/// e-mail was queued.
fn settle(
    tx: &Connection,
    send: &QueuedSend,
    channel: &Channel,
    outcome: &Outcome,
    fallback: &Fallback,
    now: DateTime<Utc>,
) -> Result<bool, DbError> {
    let at = clock::stamp(now);
    let service = service_name(&channel.kind);
    let (retry, error) = match outcome {
        Outcome::Delivered { remote_id } => {
            store::delivered(tx, send.id, &at, remote_id.as_deref())?;
            (None, None)
        }
        Outcome::Retry { error, after } => {
            let retry = retry_at(send, *after, now);
            store::attempt_failed(tx, send.id, &at, error, retry.as_deref())?;
            (retry, Some(error.clone()))
        }
        Outcome::Refused { error } => {
            store::attempt_failed(tx, send.id, &at, error, None)?;
            (None, Some(error.clone()))
        }
        Outcome::Gone { error } => {
            store::attempt_failed(tx, send.id, &at, error, None)?;
            store::set_state(tx, channel.id, "disabled", Some("gone"))?;
            store::drop_waiting(tx, channel.id, &at, "not sent: the channel was disabled")?;
            (None, Some(error.clone()))
        }
    };
    let note = match &error {
        None => format!("{service} took it"),
        Some(e) if retry.is_some() => format!("{e} (trying again)"),
        Some(e) => e.clone(),
    };
    store::note_result(tx, channel.id, &note, &at)?;
    let mut mailed = false;
    if let (Some(kind), Some(reminder_id)) = (send.delivery_kind.as_deref(), send.reminder_id) {
        let params = match &error {
            None => json!({ "name": channel.name, "kind": channel.kind }),
            Some(detail) => json!({
                "name": channel.name,
                "kind": channel.kind,
                "detail": detail,
                "retrying": retry.is_some(),
            }),
        };
        deliveries::insert(
            tx,
            &NewDelivery {
                user_id: send.user_id,
                reminder_id: Some(reminder_id),
                kind,
                title: &send.title,
                medication_name: send.medication_name.as_deref(),
                channel: &format!("channel:{}", channel.id),
                attempted_at: Stamp::from(now),
                error: error.as_deref(),
                fallback: send.fallback,
                result_code: if error.is_none() {
                    "channel_sent"
                } else {
                    "channel_failed"
                },
                result_params: &params.to_string(),
            },
        )?;
        if store::decides(tx, send.id)?
            && let Some(round) = send.round
        {
            if error.is_some() {
                mailed = fall_back_to_email(tx, send, reminder_id, round, fallback, now)?;
            }
            settle_reminder(
                tx,
                send,
                reminder_id,
                round,
                error.as_deref(),
                retry.is_some(),
                now,
            )?;
        }
    }
    Ok(mailed)
}

/// "When no chosen method accepted it, try the next": a channel failed the round of a
/// reminder nothing has delivered yet, so the e-mail fallback goes out (once per round) if
/// the person chose it, e-mail is on and can be sent, and e-mail is not already on its way.
/// The mail then decides the reminder with the channels still trying.
fn fall_back_to_email(
    conn: &Connection,
    send: &QueuedSend,
    reminder_id: i64,
    round: i64,
    fallback: &Fallback,
    now: DateTime<Utc>,
) -> rusqlite::Result<bool> {
    if !fallback.mailer.is_configured() || store::round_state(conn, reminder_id, round)?.1 > 0 {
        return Ok(false);
    }
    if outbox::round_mail(conn, reminder_id, round)?.is_some() {
        return Ok(false);
    }
    // Still held: no push delivered the round.
    let Some(job) = reminders::job(conn, reminder_id)? else {
        return Ok(false);
    };
    if job.claimed_until.as_deref() != Some(reminders::HELD_BY_MAIL) {
        return Ok(false);
    }
    let Some(recipient) = load_recipient(conn, send.user_id)? else {
        return Ok(false);
    };
    if !notify_prefs::fallback_on(&recipient.prefs) || !recipient.email_verified {
        return Ok(false);
    }
    let message: Message = serde_json::from_value(send.message.clone()).unwrap_or_default();
    let content = crate::services::messages::Content {
        title: message.title.clone(),
        body: message.body.clone(),
        take_url: message.take_page.clone(),
        open_url: message.open_url.clone(),
        tag: format!("reminder-{reminder_id}"),
        token: message.token.clone(),
        snooze: message.snooze,
        silent: !recipient.prefs.sound_enabled,
        vibrate: recipient.prefs.vibration_enabled,
        lang: recipient.formats.lang,
    };
    let queued = enqueue_round_mail(
        conn,
        &fallback.mailer,
        &fallback.settings,
        &RoundMail {
            user_id: send.user_id,
            address: &recipient.email,
            content: &content,
            round: ReminderRound {
                reminder_id,
                round,
                delivery_kind: send.delivery_kind.as_deref().unwrap_or("reminder"),
                title: &send.title,
                medication_name: send.medication_name.as_deref(),
                fallback: true,
            },
            retry_until: job
                .grace_ends_at
                .filter(|_| round == job.round_offset)
                .map(Stamp::instant),
        },
        now,
    )?;
    if queued && let Some((mail_id, _)) = outbox::round_mail(conn, reminder_id, round)? {
        outbox::let_decide(conn, mail_id, None)?;
    }
    Ok(queued)
}

/// The first message of a round a channel takes marks the reminder sent; when the last one
/// that could is given up, and no e-mail is still on its way, the reminder fails.
fn settle_reminder(
    conn: &Connection,
    send: &QueuedSend,
    reminder_id: i64,
    round: i64,
    error: Option<&str>,
    retrying: bool,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let Some(job) = reminders::job(conn, reminder_id)? else {
        return Ok(());
    };
    let relative = round - job.round_offset;
    if relative < 0 {
        return Ok(());
    }
    let prefs = notify_prefs::global(conn, job.user_id)?;
    let medication = match job.reminder.medication_id {
        Some(id) => crate::store::medications::find(conn, job.user_id, id)?,
        None => None,
    };
    let next = next_repeat(
        job.reminder.kind,
        relative,
        followups(&prefs, medication.as_ref().map(|m| &m.rules)),
        now,
    );
    let Some(error) = error else {
        return reminders::mail_delivered(conn, reminder_id, relative, Stamp::from(now), next.as_deref());
    };
    if retrying {
        return Ok(());
    }
    let (waiting, delivered) = store::round_state(conn, reminder_id, round)?;
    let mail_pending = matches!(
        outbox::round_mail(conn, reminder_id, round)?,
        Some((_, outbox::MailState::Waiting | outbox::MailState::Accepted))
    );
    if waiting > 0 || delivered > 0 || mail_pending {
        return Ok(());
    }
    let others = job.reminder.failure_reason.as_deref().unwrap_or_default();
    let reason = join_reasons(others, &format!("channel:{}: {error}", send.channel_id));
    reminders::mail_failed(conn, reminder_id, relative, &reason, next.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doses_channel_message_is_tried_every_15_minutes_at_most_and_a_last_time_before_its_grace_ends() {
        let now = Stamp::at("2026-03-20T07:45:00Z").instant();
        let send = |event: &str, attempts: i64, give_up: &str| QueuedSend {
            id: 1,
            channel_id: 1,
            user_id: 1,
            reminder_id: Some(1),
            round: Some(0),
            escalation_id: None,
            event: event.into(),
            delivery_kind: Some("reminder".into()),
            title: "Time for Zinc".into(),
            medication_name: None,
            fallback: false,
            message: json!({}),
            idempotency_key: "k".into(),
            attempts,
            give_up_at: Stamp::at(give_up),
        };
        // 15 s doubling: after 8 failures 3,840 s, capped at 15 minutes for a dose.
        let due = send("reminder.due", 8, "2026-03-20T09:00:00Z");
        assert_eq!(
            retry_at(&due, None, now).as_deref(),
            Some("2026-03-20T08:00:00.000Z")
        );
        // Its grace ends in 10 minutes: a last try a minute before, then none.
        let late = send("reminder.due", 8, "2026-03-20T07:55:00Z");
        assert_eq!(
            retry_at(&late, None, now).as_deref(),
            Some("2026-03-20T07:54:00.000Z")
        );
        let over = send("reminder.due", 9, "2026-03-20T07:46:00Z");
        assert_eq!(retry_at(&over, None, now), None);
        // Other events keep the hour.
        let hook = send("dose.logged", 8, "2026-03-21T07:45:00Z");
        assert_eq!(
            retry_at(&hook, None, now).as_deref(),
            Some("2026-03-20T08:45:00.000Z")
        );
    }

    #[test]
    fn a_carers_alert_withdrawn_after_the_clock_went_back_says_why_in_their_language() {
        let handled = store::Handled {
            status: None,
            at: None,
            by: Some("Kim".into()),
            snoozed_until: None,
        };
        let text = |lang: &str| {
            let formats = Formats::new(chrono_tz::UTC, None, None, Some(lang));
            handled_text(&handled, CLOCK_CORRECTED, &formats, Utc::now())
        };
        assert_eq!(
            text("en"),
            "Alert withdrawn: the server's clock was corrected and this dose is not overdue yet"
        );
        assert_eq!(
            text("de"),
            "Warnung zurückgezogen: Die Uhr des Servers wurde korrigiert, diese Dosis ist noch nicht überfällig"
        );
        assert!(text("es").starts_with("Alerta retirada: "));
        assert!(text("fr").starts_with("Alerte retirée : "));
    }
}

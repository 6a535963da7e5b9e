//! The dispatcher (DESIGN §4): every tick it claims the reminders that need it, delivers
//! them over the person's channels, records every attempt, retries with backoff, repeats
//! unanswered reminders and falls back to e-mail when every push failed. What it decides
//! and records between sends (planning a round, recording its results) is the service
//! `services::rounds`; this module sends and keeps the pipeline moving.
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

use chrono::{DateTime, Utc};
use serde_json::json;
use tokio::sync::{Mutex, Notify, Semaphore, mpsc};
use tokio::task::JoinSet;

use super::channel_queue::ChannelQueue;
use super::clock_watch::{self, ClockWatch};
use super::heartbeat::Heartbeat;
use super::mail_queue::MailQueue;
use super::push::{PushOutcome, Pusher};
use crate::clock::Clock;
use crate::config::Settings;
use crate::db::{Db, DbError, Stamp};
use crate::mailer::Mailer;
use crate::services::messages::{self, Content};
use crate::services::rounds::{
    self, ChannelReport, MISSED_BATCH, PlanContext, PushSent, Pushes, Recipient, Round, fallback_refused,
    fallback_skipped, load_recipient, no_device, not_configured, push_report, switched_off, topic,
    unverified,
};
use crate::store::notify_prefs::{self, Method};
use crate::store::reminders;

const BATCH: i64 = 100;
/// Pushes in flight at once, over all reminders.
const PUSHES_AT_ONCE: usize = 64;
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
    /// Notices the system clock being set forward or back (logged, and read by /health).
    pub clock_watch: ClockWatch,
    /// Wakes the dispatcher's timer to look again at when the next reminder is due.
    woken: Notify,
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
            clock_watch: ClockWatch::default(),
            woken: Notify::new(),
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
        PlanContext::new(now, &self.settings, &self.mailer)
    }

    /// At start, before the first pass: releases the claims and mails a stopped or killed
    /// server left (the data directory is locked, so they are nobody's now).
    pub async fn recover(&self) -> Result<(), DbError> {
        let rounds::Recovered {
            claims,
            queued: mails,
            pushes,
            shown,
        } = self.db.write(rounds::recover).await?;
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
        // The clock may have been set back while the server was stopped, which no watch saw.
        self.rewind().await?;
        self.clock_watch.look(self.clock.system_now());
        Ok(())
    }

    /// After the clock went back (or at start): undoes what the engine decided at times that
    /// are again to come (`rounds::after_clock_went_back`).
    async fn rewind(&self) -> Result<(), DbError> {
        let ctx = self.context(self.clock.now());
        let rewound = self
            .db
            .write(move |conn| rounds::after_clock_went_back(conn, &ctx))
            .await?;
        if rewound != rounds::Rewound::default() {
            tracing::warn!(
                "the clock is earlier than when {} doses were recorded missed and {} reminders expired: \
                 the records are withdrawn and the reminders planned again; {} carers' alerts about \
                 them are withdrawn ({} corrected by e-mail)",
                rewound.misses,
                rewound.expired,
                rewound.alerts,
                rewound.mailed
            );
        }
        if rewound.alerts > 0 {
            // The carers' devices get their withdrawals at the end of the pass.
            self.pushed_reminders.store(true, Ordering::Relaxed);
            self.channels.wake();
        }
        if rewound.mailed > 0 {
            self.mailer.wake_queue();
        }
        Ok(())
    }

    /// Compares the system clock with the time that passed since the last pass: a jump of
    /// more than five minutes is logged, and one back undoes what was decided too early.
    async fn watch_the_clock(&self) -> Result<(), DbError> {
        let wall = self.clock.system_now();
        let Some(by) = self.clock_watch.look(wall) else {
            return Ok(());
        };
        let seen = clock_watch::describe(by, wall);
        if by < chrono::Duration::zero() {
            tracing::warn!(
                "{seen}: reminders and missed doses recorded since are checked against the new time"
            );
            self.rewind().await
        } else {
            tracing::warn!("{seen}: reminders that fell due meanwhile follow the catch-up rules");
            Ok(())
        }
    }

    /// Something changed that may have planned a reminder sooner than the timer waits for:
    /// it looks again (a wake while it is not waiting is kept for its next wait).
    pub fn wake(&self) {
        self.woken.notify_one();
    }

    /// Waits until the next reminder is due, `longest` at most (the safety net of a pass
    /// every tick): true then, false when `wake` came first (the caller looks again). Doses
    /// recorded missed and carers' alerts are looked at in every pass, so at least once a tick.
    pub async fn until_next_due(&self, longest: std::time::Duration) -> bool {
        let now = self.clock.now();
        let at = Stamp::from(now);
        let next = self
            .db
            .read(move |conn| Ok::<_, DbError>(reminders::next_due(conn, at)?))
            .await;
        let wait = match next {
            Ok(Some(due)) => (due.instant() - now).to_std().unwrap_or_default().min(longest),
            Ok(None) => longest,
            Err(e) => {
                tracing::warn!("cannot tell when the next reminder is due: {e}");
                longest
            }
        };
        tokio::select! {
            () = tokio::time::sleep(wait) => true,
            () = self.woken.notified() => false,
        }
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
        self.watch_the_clock().await?;
        let missed = self.record_missed().await?;
        // Batches past their expiry stop counting before anything reads the stock; then the
        // refills to order and the batches expiring are queued to go out in this pass.
        let now = self.clock.now();
        self.db
            .write(move |conn| {
                crate::services::batches::expire_due(conn, now)?;
                crate::services::stock_notices::raise_due(conn, now)
            })
            .await?;
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
        self.db.write(move |conn| rounds::prune(conn, now)).await?;
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
                .write(move |conn| rounds::record_missed_batch(conn, now))
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
                .write(|conn| rounds::take_withdrawals(conn, WITHDRAWALS_BATCH))
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
            .write(move |conn| rounds::claim_and_plan(conn, &ctx, limit))
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
        sent: Vec<PushSent>,
        finished: Vec<(Round, Pushes)>,
    ) -> Result<Vec<Vec<ChannelReport>>, DbError> {
        let ctx = self.context(self.clock.now());
        let recorded = self
            .db
            .write(move |conn| rounds::record_results(conn, &ctx, &sent, finished))
            .await?;
        if recorded.pushed {
            self.pushed_reminders.store(true, Ordering::Relaxed);
        }
        if recorded.fallback_queued {
            self.mailer.wake_queue();
        }
        Ok(recorded.reports)
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
            .write(move |conn| rounds::plan_one(conn, id, &claim, &ctx))
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
            .write(move |conn| rounds::record_test(conn, user_id, &title, &stored, now))
            .await?;
        Ok(reports)
    }
}

/// Sends a test message to the chosen channels now, one report each.
async fn test_channels(engine: &Engine, recipient: &Recipient, methods: &[Method]) -> Vec<ChannelReport> {
    let mut reports = Vec::new();
    for method in methods {
        let Some(id) = method.channel_id() else {
            continue;
        };
        let channel = match rounds::usable_channel(*method, id, &recipient.channels) {
            Ok(channel) => channel,
            Err(report) => {
                reports.push(*report);
                continue;
            }
        };
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

//! The dispatcher (DESIGN §4): every tick it claims the reminders that need it, delivers
//! them over the person's channels, records every attempt, retries with backoff, repeats
//! unanswered reminders and falls back to e-mail when every push failed.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension};
use tokio::sync::Mutex;
use tokio::task::JoinSet;

use super::heartbeat::Heartbeat;
use super::messages::{self, Content, Formats};
use super::push::{PushOutcome, Pusher};
use crate::clock::{self, Clock};
use crate::config::Settings;
use crate::db::{Db, DbError};
use crate::domain::notification::{ReminderKind, ReminderStatus};
use crate::mailer::Mailer;
use crate::security::codes;
use crate::store::deliveries::{self, NewDelivery};
use crate::store::notify_prefs::{self, GlobalPrefs, Method};
use crate::store::push_subscriptions::{self, Subscription};
use crate::store::reminders::{self, Job};
use crate::store::{medications, settings};

/// Reminders claimed per batch, and delivered at once. Batches stay small so that each is
/// sent well within its claim.
const BATCH: i64 = 64;
const CONCURRENCY: usize = 32;
/// A claim outlives any batch's sending (timeouts included); after a crash it lapses.
const CLAIM_MINUTES: i64 = 10;
/// Take links work until this long after the dose time.
const TAKE_LINK_HOURS: i64 = 24;

pub struct Engine {
    pub db: Db,
    pub mailer: Arc<Mailer>,
    pub pusher: Pusher,
    pub settings: Arc<Settings>,
    /// What "now" is for planning and sending: the server's clock, which tests move.
    pub clock: Clock,
    /// Held by a dispatcher pass, so that passes never overlap.
    ticking: Mutex<()>,
    /// Beats when a pass ends well (read by /health).
    pub heartbeat: Heartbeat,
}

/// Who a notification goes to and how they read times.
#[derive(Debug, Clone)]
pub struct Recipient {
    pub user_id: i64,
    pub email: String,
    pub formats: Formats,
    pub prefs: GlobalPrefs,
    pub subscriptions: Vec<Subscription>,
}

/// One channel's outcome of one delivery round.
#[derive(Debug, Clone)]
pub struct ChannelReport {
    pub channel: Method,
    /// `None` when delivered.
    pub error: Option<String>,
    pub detail: String,
    pub fallback: bool,
    /// The channel could not even be tried (no device subscribed, e-mail not configured,
    /// the method switched off): the person's set-up, not a failing service.
    pub unavailable: bool,
    pub delivered_to: Vec<i64>,
    pub gone: Vec<i64>,
}

impl ChannelReport {
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }
}

pub fn load_recipient(conn: &Connection, user_id: i64) -> rusqlite::Result<Option<Recipient>> {
    let Some(email) = conn
        .query_row("SELECT email FROM users WHERE id = ?1", [user_id], |row| {
            row.get::<_, String>(0)
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
    },
}

impl Engine {
    pub fn new(db: Db, mailer: Arc<Mailer>, pusher: Pusher, settings: Arc<Settings>, clock: Clock) -> Engine {
        Engine {
            db,
            mailer,
            pusher,
            settings,
            clock,
            ticking: Mutex::new(()),
            heartbeat: Heartbeat::new(),
        }
    }

    fn link(&self, path: &str) -> String {
        format!("{}{path}", self.settings.link_base())
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

    /// Waits up to `within` for a running pass to end; false when it is still sending.
    pub async fn finish_pass(&self, within: std::time::Duration) -> bool {
        tokio::time::timeout(within, self.ticking.lock()).await.is_ok()
    }

    /// One dispatcher pass: claims and delivers everything due now. Returns how many
    /// reminders it handled.
    async fn tick(self: &Arc<Self>) -> Result<usize, DbError> {
        let mut handled = 0;
        loop {
            let now = self.clock.now();
            let claim = reminders::new_claim(&clock::stamp(now + Duration::minutes(CLAIM_MINUTES)));
            let now_stamp = clock::stamp(now);
            let held = claim.clone();
            let ids = self
                .db
                .write(move |conn| Ok::<_, DbError>(reminders::claim_due(conn, &now_stamp, &held, BATCH)?))
                .await?;
            let claimed = ids.len();
            let mut tasks = JoinSet::new();
            for id in ids {
                while tasks.len() >= CONCURRENCY {
                    join_one(&mut tasks).await;
                }
                let engine = Arc::clone(self);
                let claim = claim.clone();
                tasks.spawn(async move { engine.dispatch(id, &claim).await });
            }
            while !tasks.is_empty() {
                join_one(&mut tasks).await;
            }
            handled += claimed;
            if i64::try_from(claimed).unwrap_or(0) < BATCH {
                break;
            }
        }
        let now = self.clock.now_stamp();
        self.db
            .write(move |conn| Ok::<_, DbError>(reminders::prune_take_tokens(conn, &now)?))
            .await?;
        Ok(handled)
    }

    /// Handles one claimed reminder from start to end. Returns each channel's outcome, or
    /// `None` when there was nothing to send (answered, expired, cancelled meanwhile, or no
    /// method on).
    pub async fn dispatch(&self, id: i64, claim: &str) -> Result<Option<Vec<ChannelReport>>, DbError> {
        let claim = claim.to_owned();
        let now = self.clock.now();
        let catch_up = Duration::minutes(i64::from(self.settings.reminders.catch_up_minutes));
        let link_base = self.settings.link_base();
        let held = claim.clone();
        let plan = self
            .db
            .write(move |conn| {
                let Some(job) = reminders::job(conn, id)? else {
                    return Ok::<_, DbError>(None);
                };
                // Someone else's now (the claim lapsed, or the reminder was cancelled).
                if job.claimed_until.as_deref() != Some(held.as_str()) {
                    return Ok(None);
                }
                let plan = plan_job(conn, &job, now, catch_up, &link_base)?;
                Ok(Some((job, plan)))
            })
            .await?;
        let Some((job, plan)) = plan else {
            return Ok(None);
        };
        match plan {
            Plan::Finish(status, reason) => {
                self.db
                    .write(move |conn| {
                        Ok::<_, DbError>(reminders::finish(conn, id, &claim, status, reason.as_deref())?)
                    })
                    .await?;
                Ok(None)
            }
            Plan::NoMethod {
                user_id,
                kind,
                title,
                reports,
            } => {
                // Nothing was sent: like a finish, the caller learns why from the reminder.
                let recorded_at = self.clock.now();
                self.db
                    .write(move |conn| {
                        let tx = conn.transaction()?;
                        record(
                            &tx,
                            user_id,
                            Some(id),
                            kind,
                            &title,
                            Some(&job.reminder.medication_name),
                            &reports,
                            recorded_at,
                        )?;
                        let why: Vec<&str> = reports.iter().filter_map(|r| r.error.as_deref()).collect();
                        let reason = match why.is_empty() {
                            true => "No delivery method is turned on".to_owned(),
                            false => format!("No delivery method is turned on: {}", why.join("; ")),
                        };
                        reminders::finish(&tx, id, &claim, "failed", Some(&reason))?;
                        tx.commit()?;
                        Ok::<_, DbError>(())
                    })
                    .await?;
                Ok(None)
            }
            Plan::Send {
                recipient,
                content,
                channels,
                repeat,
                kind,
            } => {
                let reports = self.deliver(&recipient, &channels, &content, true).await;
                let settings = Arc::clone(&self.settings);
                let title = content.title.clone();
                let answer = reports.clone();
                let now = self.clock.now();
                self.db
                    .write(move |conn| {
                        let tx = conn.transaction()?;
                        record(
                            &tx,
                            recipient.user_id,
                            Some(job.reminder.id),
                            kind,
                            &title,
                            Some(&job.reminder.medication_name),
                            &reports,
                            now,
                        )?;
                        let delivered = reports.iter().any(ChannelReport::ok);
                        let prefs = &recipient.prefs;
                        let interval = Duration::minutes(prefs.repeat_interval_minutes.max(1));
                        let repeats_done = job.repeats_sent + i64::from(repeat);
                        let next_repeat = (job.reminder.kind != ReminderKind::LowStock
                            && repeats_done < prefs.repeat_max)
                            .then(|| clock::stamp(now + interval));
                        if repeat {
                            if delivered {
                                reminders::delivered(
                                    &tx,
                                    job.reminder.id,
                                    &claim,
                                    &clock::stamp(now),
                                    true,
                                    next_repeat.as_deref(),
                                )?;
                            } else {
                                reminders::repeat_failed(
                                    &tx,
                                    job.reminder.id,
                                    &claim,
                                    next_repeat.as_deref(),
                                )?;
                            }
                        } else if delivered {
                            reminders::delivered(
                                &tx,
                                job.reminder.id,
                                &claim,
                                &clock::stamp(now),
                                false,
                                next_repeat.as_deref(),
                            )?;
                        } else {
                            let attempts = job.attempts + 1;
                            let reason = failure_reason(&reports);
                            let retry_at =
                                (attempts < i64::from(settings.reminders.retry_attempts)).then(|| {
                                    let base = i64::from(settings.reminders.retry_backoff_seconds);
                                    let factor = 1_i64 << (attempts - 1).clamp(0, 20);
                                    clock::stamp(now + Duration::seconds(base.saturating_mul(factor)))
                                });
                            reminders::round_failed(
                                &tx,
                                job.reminder.id,
                                &claim,
                                retry_at.as_deref(),
                                &reason,
                            )?;
                        }
                        tx.commit()?;
                        Ok::<_, DbError>(())
                    })
                    .await?;
                Ok(Some(answer))
            }
        }
    }

    /// Sends `content` over `channels`. With `fallback`, a round where push was chosen but
    /// reached no device goes out by e-mail when e-mail can be sent.
    pub async fn deliver(
        &self,
        recipient: &Recipient,
        channels: &[Method],
        content: &Content,
        fallback: bool,
    ) -> Vec<ChannelReport> {
        let mut reports = Vec::new();
        if channels.contains(&Method::Push) {
            reports.push(self.push_all(recipient, content).await);
        }
        if channels.contains(&Method::Email) {
            reports.push(self.email(recipient, content, false).await);
        }
        let push_failed = reports.iter().any(|r| r.channel == Method::Push && !r.ok());
        if fallback && push_failed && !channels.contains(&Method::Email) && self.mailer.is_configured() {
            reports.push(self.email(recipient, content, true).await);
        }
        reports
    }

    async fn push_all(&self, recipient: &Recipient, content: &Content) -> ChannelReport {
        let mut report = ChannelReport {
            channel: Method::Push,
            error: None,
            detail: String::new(),
            fallback: false,
            unavailable: false,
            delivered_to: Vec::new(),
            gone: Vec::new(),
        };
        if recipient.subscriptions.is_empty() {
            report.error = Some("no device is subscribed to push notifications".into());
            report.detail = report.error.clone().unwrap_or_default();
            report.unavailable = true;
            return report;
        }
        let payload = content.push_payload();
        let mut errors = Vec::new();
        for subscription in &recipient.subscriptions {
            match self.pusher.send(subscription, &payload).await {
                PushOutcome::Delivered => report.delivered_to.push(subscription.id),
                PushOutcome::Gone(e) => {
                    report.gone.push(subscription.id);
                    errors.push(e);
                }
                PushOutcome::Failed(e) => errors.push(e),
            }
        }
        let devices = recipient.subscriptions.len();
        if report.delivered_to.is_empty() {
            errors.dedup();
            report.error = Some(errors.join("; "));
            report.detail = report.error.clone().unwrap_or_default();
        } else {
            report.detail = format!(
                "Sent to {} of {devices} device{}",
                report.delivered_to.len(),
                if devices == 1 { "" } else { "s" }
            );
        }
        report
    }

    async fn email(&self, recipient: &Recipient, content: &Content, fallback: bool) -> ChannelReport {
        let result = self.mailer.send(&recipient.email, content.email()).await;
        let unavailable = matches!(result, Err(crate::mailer::MailError::NotConfigured));
        let error = result.err().map(|e| match e {
            crate::mailer::MailError::NotConfigured => "E-mail is not configured on this server".to_owned(),
            other => other.to_string(),
        });
        ChannelReport {
            channel: Method::Email,
            detail: error.clone().unwrap_or_else(|| {
                if fallback {
                    format!("Sent to {} (every push failed)", recipient.email)
                } else {
                    format!("Sent to {}", recipient.email)
                }
            }),
            error,
            fallback,
            unavailable,
            delivered_to: Vec::new(),
            gone: Vec::new(),
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
            silent: !recipient.prefs.sound_enabled,
            vibrate: recipient.prefs.vibration_enabled,
            lang: recipient.formats.lang,
        };
        let reports = self.deliver(&recipient, methods, &content, false).await;
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

async fn join_one(tasks: &mut JoinSet<Result<Option<Vec<ChannelReport>>, DbError>>) {
    match tasks.join_next().await {
        Some(Ok(Err(e))) => tracing::error!("reminder delivery could not be recorded: {e}"),
        Some(Err(e)) => tracing::error!("reminder delivery task failed: {e}"),
        _ => {}
    }
}

fn failure_reason(reports: &[ChannelReport]) -> String {
    if reports.is_empty() {
        return "no delivery method is turned on".into();
    }
    reports
        .iter()
        .filter_map(|r| r.error.as_ref().map(|e| format!("{}: {e}", r.channel.as_str())))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Writes the delivery history of one round and keeps the subscriptions tidy: the ones the
/// push service called gone are deleted.
#[allow(clippy::too_many_arguments)]
fn record(
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
    for report in reports {
        deliveries::insert(
            conn,
            &NewDelivery {
                user_id,
                reminder_id,
                kind,
                title,
                medication_name,
                channel: report.channel.as_str(),
                attempted_at: &at,
                error: report.error.as_deref(),
                fallback: report.fallback,
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
    if repeat {
        // Repeats that fell due while the server was down are dropped, not sent hours late.
        let late = job
            .next_attempt_at
            .as_deref()
            .is_some_and(|at| now - parse_instant(at, now) > catch_up);
        if job.reminder.answered_at.is_some()
            || job.repeats_sent >= recipient.prefs.repeat_max
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
    let medication = match job.reminder.medication_id {
        Some(id) => medications::find(conn, job.user_id, id)?,
        None => None,
    };
    let Some(medication) = medication else {
        // The medication was deleted: a repeat has nothing left to remind of.
        return Ok(Plan::Finish(if repeat { "sent" } else { "cancelled" }, None));
    };
    let own = notify_prefs::for_medication(conn, medication.id)?;
    let effective = notify_prefs::effective(&recipient.prefs, own.as_ref());
    let (kind, title, body, due, open_path) = if job.reminder.kind == ReminderKind::LowStock {
        let inventory = medications::inventory(conn, medication.id)?;
        let left = inventory
            .as_ref()
            .map(|inv| (inv.current_quantity, inv.containers.stock_unit()));
        let (title, body) = messages::low_stock_body(&medication.name, left, recipient.formats.lang);
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
        let amount = (medication.default_quantity, medication.unit.as_str());
        let message = job.reminder.message.clone().or(effective.custom_message.clone());
        let (title, body) = messages::dose_body(
            &medication.name,
            Some(amount),
            due,
            &recipient.formats,
            message.as_deref(),
            repeat,
        );
        (
            if repeat { "repeat" } else { "reminder" },
            title,
            body,
            Some(due),
            "/today",
        )
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
            .map(|method| {
                let error = notify_prefs::method_off(&recipient.prefs, *method)
                    .unwrap_or("This delivery method is turned off")
                    .to_owned();
                ChannelReport {
                    channel: *method,
                    detail: error.clone(),
                    error: Some(error),
                    fallback: false,
                    unavailable: true,
                    delivered_to: Vec::new(),
                    gone: Vec::new(),
                }
            })
            .collect();
        return Ok(Plan::NoMethod {
            user_id: recipient.user_id,
            kind,
            title,
            reports,
        });
    }
    let take_url = match due {
        Some(due) => {
            let token = codes::link_token();
            reminders::add_take_token(
                conn,
                &codes::hash_link_token(&token),
                job.reminder.id,
                &clock::stamp(due + Duration::hours(TAKE_LINK_HOURS)),
            )?;
            Some(format!("{link_base}/notifications/take/{token}"))
        }
        None => None,
    };
    let content = Content {
        title,
        body,
        take_url,
        open_url: format!("{link_base}{open_path}"),
        tag: format!("reminder-{}", job.reminder.id),
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
    })
}

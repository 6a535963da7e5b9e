//! Missed-dose escalation (issue 16): a planned dose of a medication that escalates, still not
//! handled `after_minutes` after its time (unlogged, or recorded missed), reaches each chosen
//! carer on their own channels — their push devices and their e-mail — with their own take
//! link. Each carer is told once per dose (`escalations` is unique per dose and carer); an
//! alert is written with its e-mail before its pushes go out and settled when they have their
//! answers, so a server stopped in between sends its pushes again (same Topic) and never the
//! e-mail twice. The carers' devices are noted with the dose's reminder, so handling the dose
//! anywhere withdraws them like the account holder's.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use tokio::task::JoinSet;

use super::channels::{Message, Priority};
use super::dispatcher::Engine;
use super::push::PushOutcome;
use crate::clock;
use crate::db::{DbError, Stamp};
use crate::domain::escalation::MAX_AFTER_MINUTES;
use crate::mailer::Mailer;
use crate::security::codes;
use crate::services::messages::{self, Content};
use crate::services::planner;
use crate::services::rounds::{TAKE_LINK_HOURS, load_recipient};
use crate::store::channels::{self as channel_store, NewSend};
use crate::store::escalations::{self, Pending};
use crate::store::outbox::{self, MailKind, NewMail};
use crate::store::push_subscriptions::{self, Subscription};
use crate::store::{medications, notify_prefs, people, reminders};

/// Alerts started per transaction.
const BATCH: i64 = 100;
/// A dose whose alert fell due longer ago than this (a server that was off) alerts nobody.
const LOOKBACK_HOURS: i64 = 24;

/// An alert written and about to be pushed.
struct Alert {
    id: i64,
    reminder_id: i64,
    subscriptions: Vec<Subscription>,
    payload: Arc<[u8]>,
    topic: Arc<str>,
    /// The carer's channels have the alert queued.
    on_channels: bool,
}

/// What planning needs besides the connection.
struct Context {
    now: DateTime<Utc>,
    link_base: String,
    mailer: Arc<Mailer>,
    retry_attempts: u32,
    retry_backoff_seconds: u32,
}

/// What one alert's pushes came to.
#[derive(Default)]
struct Answers {
    delivered: Vec<i64>,
    gone: Vec<i64>,
}

impl Engine {
    /// Starts the alerts that have fallen due and pushes them (and any a stopped server
    /// left pending). Returns how many were started.
    pub(super) async fn escalate(self: &Arc<Self>) -> Result<usize, DbError> {
        let mut started = 0;
        loop {
            let ctx = Context {
                now: self.clock.now(),
                link_base: self.settings.link_base(),
                mailer: Arc::clone(&self.mailer),
                retry_attempts: self.settings.reminders.retry_attempts,
                retry_backoff_seconds: self.settings.reminders.retry_backoff_seconds,
            };
            let (found, fresh, alerts, queued) = self
                .db
                .write(move |conn| {
                    let tx = conn.transaction()?;
                    let now = Stamp::from(ctx.now);
                    let from = ctx.now
                        - Duration::hours(LOOKBACK_HOURS)
                        - Duration::minutes(i64::from(MAX_AFTER_MINUTES));
                    let due = escalations::due(&tx, &clock::stamp(from), now, BATCH)?;
                    let mut fresh = Vec::with_capacity(due.len());
                    for d in &due {
                        fresh.extend(escalations::insert(&tx, d.reminder_id, d.carer_id, now)?);
                    }
                    let mut alerts = Vec::new();
                    let mut queued = false;
                    for pending in escalations::pending(&tx, BATCH)? {
                        let is_new = fresh.contains(&pending.id);
                        if let Some((alert, mailed)) = plan(&tx, &pending, is_new, &ctx)? {
                            queued |= mailed;
                            alerts.push(alert);
                        }
                    }
                    tx.commit()?;
                    Ok::<_, DbError>((due.len(), fresh.len(), alerts, queued))
                })
                .await?;
            if queued {
                self.mailer.wake_queue();
            }
            if alerts.iter().any(|a| a.on_channels) {
                self.channels.wake();
            }
            let pushed = alerts.len();
            self.push_alerts(alerts).await?;
            started += fresh;
            // A full batch of either kind: more may be waiting.
            if (found as i64) < BATCH && (pushed as i64) < BATCH {
                return Ok(started);
            }
        }
    }

    /// Pushes each alert to its carer's devices, then records, in one transaction, which
    /// devices show it (they get the withdrawal), the subscriptions the push service called
    /// gone, and each alert's outcome.
    async fn push_alerts(self: &Arc<Self>, alerts: Vec<Alert>) -> Result<(), DbError> {
        if alerts.is_empty() {
            return Ok(());
        }
        let mut tasks = JoinSet::new();
        for (index, alert) in alerts.iter().enumerate() {
            for subscription in &alert.subscriptions {
                let permit = Arc::clone(&self.pushes).acquire_owned().await;
                let engine = Arc::clone(self);
                let (subscription, payload, topic) = (
                    subscription.clone(),
                    Arc::clone(&alert.payload),
                    Arc::clone(&alert.topic),
                );
                tasks.spawn(async move {
                    let outcome = match permit {
                        Ok(_permit) => engine.pusher.send(&subscription, &payload, Some(&topic)).await,
                        Err(e) => PushOutcome::Failed(e.to_string()),
                    };
                    (index, subscription.id, outcome)
                });
            }
        }
        let mut answers: Vec<Answers> = alerts.iter().map(|_| Answers::default()).collect();
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok((index, id, PushOutcome::Delivered)) => answers[index].delivered.push(id),
                Ok((index, id, PushOutcome::Gone(_))) => answers[index].gone.push(id),
                Ok((_, id, PushOutcome::Failed(e))) => {
                    tracing::debug!("a carer's alert did not reach subscription {id}: {e}");
                }
                Err(e) => tracing::warn!("a push task of a carer's alert failed: {e}"),
            }
        }
        if answers.iter().any(|a| !a.delivered.is_empty()) {
            self.pushed_reminders.store(true, Ordering::Relaxed);
        }
        let now = self.clock.now();
        self.db
            .write(move |conn| {
                let tx = conn.transaction()?;
                for (alert, answers) in alerts.iter().zip(answers) {
                    settle(&tx, alert, &answers, now)?;
                }
                tx.commit()?;
                Ok::<_, DbError>(())
            })
            .await
    }
}

/// Plans a pending alert inside the transaction that started it: one no longer wanted (the
/// dose handled, the carer's access ended, the person archived) is dropped; else the carer's
/// take link is minted, the e-mail queued (once), and the push made ready. Returns the alert
/// and whether an e-mail was queued.
fn plan(
    conn: &Connection,
    pending: &Pending,
    is_new: bool,
    ctx: &Context,
) -> rusqlite::Result<Option<(Alert, bool)>> {
    let unwanted = || escalations::drop_pending(conn, pending.id).map(|()| None);
    if !escalations::wanted(conn, pending.id)? {
        return unwanted();
    }
    let Some(recipient) = load_recipient(conn, pending.carer_id)? else {
        return unwanted();
    };
    let Some(medication) = medications::find(conn, pending.owner_id, pending.medication_id)? else {
        return unwanted();
    };
    let person = people::name(conn, pending.person_id)?.unwrap_or_default();
    let due = pending.scheduled_time.instant();
    // Either side's "hide medication names" keeps them off the carer's lock screen and mailbox.
    let hide = recipient.prefs.hide_medication_names
        || notify_prefs::global(conn, pending.owner_id)?.hide_medication_names;
    let (title, body) = if hide {
        messages::hidden_escalation_body(&person, due, &recipient.formats)
    } else {
        let quantity = planner::dose_quantity(conn, pending.owner_id, &medication, due, ctx.now)?;
        messages::escalation_body(
            &person,
            &medication.name,
            (quantity, &medication.unit),
            due,
            &recipient.formats,
        )
    };
    let token = codes::link_token();
    reminders::add_take_token(
        conn,
        &codes::hash_link_token(&token),
        pending.reminder_id,
        &clock::stamp(ctx.now + Duration::hours(TAKE_LINK_HOURS)),
        Some(pending.carer_id),
    )?;
    let content = Content {
        title,
        body,
        take_url: Some(format!("{}/notifications/take/{token}", ctx.link_base)),
        open_url: format!("{}/today", ctx.link_base),
        // The dose's tag: the withdrawal of the handled dose closes it on the carer's devices.
        tag: format!("reminder-{}", pending.reminder_id),
        token: Some(token),
        snooze: false,
        silent: !recipient.prefs.sound_enabled,
        vibrate: recipient.prefs.vibration_enabled,
        lang: recipient.formats.lang,
    };
    let mut mailed = false;
    if is_new && ctx.mailer.is_configured() {
        let email = content.email();
        let message_id = ctx.mailer.message_id(&format!(
            "escalation.{}.{}",
            pending.id,
            &codes::link_token()[..12]
        ));
        mailed = outbox::enqueue_escalation(
            conn,
            pending.id,
            &NewMail {
                kind: MailKind::Reminder,
                user_id: Some(pending.carer_id),
                reminder: None,
                recipient: &recipient.email,
                subject: &email.subject,
                text: &email.text,
                html: &email.html,
                message_id: &message_id,
                max_attempts: ctx.retry_attempts,
                backoff_seconds: ctx.retry_backoff_seconds,
                retry_until: None,
                now: &clock::stamp(ctx.now),
            },
        )?;
    }
    let on_channels = is_new && queue_on_channels(conn, pending, &recipient, &content, &person, ctx)?;
    let alert = Alert {
        id: pending.id,
        reminder_id: pending.reminder_id,
        subscriptions: recipient.subscriptions,
        payload: content.push_payload().into(),
        topic: format!("e{}", pending.id).into(),
        on_channels,
    };
    Ok(Some((alert, mailed)))
}

/// Queues a new alert for the carer's own channels among their delivery methods (`urgent`),
/// and tells the owner's webhooks that subscribed to `escalation.sent`. Returns whether a
/// channel of the carer's has it.
fn queue_on_channels(
    conn: &Connection,
    pending: &Pending,
    carer: &crate::services::rounds::Recipient,
    content: &Content,
    person: &str,
    ctx: &Context,
) -> rusqlite::Result<bool> {
    let now = clock::stamp(ctx.now);
    // A carer's alert offers no snooze (the content says so): the reminder is not theirs.
    let message = Message::of(
        content,
        &ctx.link_base,
        Priority::Urgent,
        serde_json::json!({
            "escalation_id": pending.id,
            "reminder_id": pending.reminder_id,
            "person": person,
            "scheduled_time": pending.scheduled_time,
        }),
    );
    let value = serde_json::to_value(&message).unwrap_or_default();
    let mut queued = false;
    for channel in carer.channels.iter().filter(|c| {
        c.usable()
            && carer
                .prefs
                .delivery_methods
                .contains(&crate::domain::notification::DeliveryMethod::Channel(c.id))
    }) {
        let key = match channel.kind.as_str() {
            "webhook" => format!("msg_pillbox_escalation_{}", pending.id),
            _ => format!("pillbox{}e{}", channel.id, pending.id),
        };
        queued |= channel_store::enqueue(
            conn,
            &NewSend {
                channel_id: channel.id,
                user_id: carer.user_id,
                reminder_id: Some(pending.reminder_id),
                round: None,
                escalation_id: Some(pending.id),
                event: "escalation.sent",
                delivery_kind: None,
                title: &message.title,
                medication_name: None,
                fallback: false,
                message: &value,
                idempotency_key: &key,
                now: &now,
                give_up_at: Stamp::from(ctx.now + Duration::hours(1)),
            },
        )?;
    }
    // The owner's integrations hear that a carer was alerted (no medication name: the
    // alert went to someone else).
    let told = serde_json::json!({
        "title": format!("{person}: a dose was not logged"),
        "body": "",
        "open_url": format!("{}/today", ctx.link_base),
        "data": { "escalation_id": pending.id, "reminder_id": pending.reminder_id, "person": person,
                  "carer_id": pending.carer_id, "scheduled_time": pending.scheduled_time },
    });
    channel_store::queue_event(
        conn,
        pending.owner_id,
        "escalation.sent",
        person,
        &told,
        &format!("msg_pillbox_escalation_{}_owner", pending.id),
        Stamp::from(ctx.now),
    )?;
    Ok(queued)
}

/// Records an alert's pushes and outcome: sent when a device or the e-mail queue took it.
/// A dose handled while the pushes were out gets its withdrawal on these devices now.
fn settle(conn: &Connection, alert: &Alert, answers: &Answers, now: DateTime<Utc>) -> rusqlite::Result<()> {
    let at = Stamp::from(now);
    for id in &answers.gone {
        push_subscriptions::delete(conn, *id)?;
    }
    for id in &answers.delivered {
        push_subscriptions::touch(conn, *id, at)?;
        reminders::shown_on(conn, alert.reminder_id, *id, &alert.topic)?;
    }
    let taken = !answers.delivered.is_empty() || alert.on_channels || escalations::has_mail(conn, alert.id)?;
    escalations::settle(conn, alert.id, if taken { "sent" } else { "failed" }, at)?;
    if let Some(outcome) = escalations::handled(conn, alert.reminder_id)? {
        reminders::withdraw(conn, alert.reminder_id, &outcome, at)?;
    }
    Ok(())
}

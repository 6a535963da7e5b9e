//! The e-mail queue's worker: sends what `store::outbox` holds, a few conversations at a
//! time, each bounded by `smtp.timeout_seconds`, and retries failures with backoff. A
//! mail server that is slow or silent holds only this worker's slots: requests, pushes and
//! shutdown never wait for it. Acceptance is recorded at once, so an accepted mail is never
//! sent again; one cut off by a stop or a crash goes out again with its Message-ID.
//!
//! A reminder's mail records each attempt in the delivery history. When no push delivered
//! its round, the mail decides the reminder: accepted, the reminder is sent (and its repeat
//! planned); given up, it fails with the reason.

use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

use crate::clock::{self, Clock};
use crate::db::{Db, DbError, Stamp};
use crate::domain::notification::{ReminderStatus, next_try};
use crate::mailer::{Email, MailError, Mailer};
use crate::services::rounds::{answered_unsent, followups, join_reasons, next_repeat};
use crate::store::deliveries::{self, NewDelivery};
use crate::store::outbox::{self, QueuedMail};
use crate::store::{escalations, notify_prefs, reminders};

/// SMTP conversations at once.
const SENDING_AT_ONCE: usize = 4;
/// The longest the worker sleeps without looking at the queue.
const IDLE_LOOK: StdDuration = StdDuration::from_secs(60);

pub struct MailQueue {
    db: Db,
    mailer: Arc<Mailer>,
    clock: Clock,
}

/// The running worker.
pub struct Worker {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Worker {
    /// Stops the worker at once: conversations in progress are cut off (their mails stay
    /// queued and go out after the next start).
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        if tokio::time::timeout(StdDuration::from_secs(2), self.task)
            .await
            .is_err()
        {
            tracing::warn!("the e-mail queue did not stop within 2 s");
        }
    }
}

impl MailQueue {
    pub fn new(db: Db, mailer: Arc<Mailer>, clock: Clock) -> Arc<MailQueue> {
        Arc::new(MailQueue { db, mailer, clock })
    }

    pub fn start(self: &Arc<Self>) -> Worker {
        let (stop, stopped) = watch::channel(false);
        let queue = Arc::clone(self);
        let task = tokio::spawn(async move { queue.run(stopped).await });
        Worker { stop, task }
    }

    async fn run(self: Arc<Self>, mut stopped: watch::Receiver<bool>) {
        let mut sending: JoinSet<()> = JoinSet::new();
        // After a failed claim (a full disk, a read-only file system) the due mail is still
        // due: without a pause the loop would spin and fill the log.
        let mut backoff = StdDuration::ZERO;
        loop {
            let free = SENDING_AT_ONCE - sending.len();
            if free > 0 && self.mailer.is_configured() {
                match self.claim(free).await {
                    Ok(mails) => {
                        backoff = StdDuration::ZERO;
                        for mail in mails {
                            let queue = Arc::clone(&self);
                            sending.spawn(async move { queue.send(mail).await });
                        }
                    }
                    Err(e) => {
                        backoff = (backoff * 2).clamp(StdDuration::from_secs(1), IDLE_LOOK);
                        tracing::error!("the e-mail queue cannot be read: {e}");
                    }
                }
            }
            // With every slot taken (or no SMTP), only a finished send or a new mail can
            // change anything: no timer, or the loop would spin on a due mail.
            let wait = if sending.len() < SENDING_AT_ONCE && self.mailer.is_configured() {
                self.until_next().await.max(backoff)
            } else {
                IDLE_LOOK
            };
            tokio::select! {
                _ = stopped.changed() => break,
                () = self.mailer.queue_woken() => {}
                Some(_) = sending.join_next(), if !sending.is_empty() => {}
                () = tokio::time::sleep(wait) => {}
            }
        }
        // Cut off: whether the server took them is unknown, so they stay queued.
        sending.abort_all();
    }

    async fn claim(&self, limit: usize) -> Result<Vec<QueuedMail>, DbError> {
        let now = Stamp::from(self.clock.now());
        self.db
            .write(move |conn| Ok::<_, DbError>(outbox::claim_due(conn, now, limit)?))
            .await
    }

    /// How long until the next mail falls due (at most `IDLE_LOOK`).
    async fn until_next(&self) -> StdDuration {
        let next = self
            .db
            .read(|conn| Ok::<_, DbError>(outbox::next_due(conn)?))
            .await;
        match next {
            // Already due: at once.
            Ok(Some(at)) => (at.instant() - self.clock.now())
                .to_std()
                .unwrap_or_default()
                .min(IDLE_LOOK),
            Ok(None) => IDLE_LOOK,
            Err(e) => {
                tracing::error!("the e-mail queue cannot be read: {e}");
                IDLE_LOOK
            }
        }
    }

    async fn send(&self, mail: QueuedMail) {
        if mail.reminder_id.is_some() {
            let now = self.clock.now();
            let queued = mail.clone();
            match self
                .db
                .write(move |conn| drop_if_answered(conn, &queued, now))
                .await
            {
                Ok(true) => return,
                Ok(false) => {}
                // Sending is the safer mistake: a reminder too many, not a lost one.
                Err(e) => tracing::error!(mail = mail.id, "cannot check the reminder of an e-mail: {e}"),
            }
        }
        if let Some(escalation) = mail.escalation_id {
            let now = self.clock.now();
            let id = mail.id;
            match self
                .db
                .write(move |conn| drop_if_unwanted(conn, id, escalation, now))
                .await
            {
                Ok(true) => return,
                Ok(false) => {}
                Err(e) => tracing::error!(mail = mail.id, "cannot check the alert of an e-mail: {e}"),
            }
        }
        let email = Email {
            subject: mail.subject.clone(),
            text: mail.text.clone(),
            html: mail.html.clone(),
        };
        let result = self
            .mailer
            .send_as(&mail.recipient, email, Some(&mail.message_id))
            .await;
        if let Err(e) = &result {
            tracing::warn!(mail = mail.id, "e-mail attempt {} failed: {e}", mail.attempts + 1);
        }
        let now = self.clock.now();
        let id = mail.id;
        if let Err(e) = self.db.write(move |conn| settle(conn, &mail, result, now)).await {
            tracing::error!(mail = id, "the outcome of an e-mail could not be recorded: {e}");
        }
    }

    /// Waits until no mail is due by the server's clock and none is being sent (tests move
    /// the clock, then wait for what fell due), at most `within`; false when it is still busy.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub async fn drain(&self, within: StdDuration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let now = Stamp::from(self.clock.now());
            let busy = self
                .db
                .read(move |conn| Ok::<_, DbError>(outbox::busy(conn, now)?))
                .await
                .unwrap_or(false);
            if !busy {
                return true;
            }
            if tokio::time::Instant::now() > deadline {
                return false;
            }
            self.mailer.wake_queue();
            tokio::time::sleep(StdDuration::from_millis(20)).await;
        }
    }
}

/// A reminder's e-mail still waiting (for a retry, or behind a slow mail server) is not
/// sent once the dose has been logged or the reminder cancelled: a reminder for a dose
/// already taken is noise at best, and at worst invites a second dose. Returns whether it
/// was dropped; a reminder the mail was holding ends as the dispatcher ends one it finds
/// answered.
fn drop_if_answered(conn: &mut Connection, mail: &QueuedMail, now: DateTime<Utc>) -> Result<bool, DbError> {
    let Some(reminder_id) = mail.reminder_id else {
        return Ok(false);
    };
    let tx = conn.transaction()?;
    let (status, reason) = match reminders::job(&tx, reminder_id)? {
        Some(job) if job.reminder.status == ReminderStatus::Cancelled => ("cancelled", None),
        Some(job) if job.reminder.answered_at.is_some() => match mail.round.map(|r| r - job.round_offset) {
            Some(0) | None => answered_unsent(&tx, &job)?,
            // A repeat of a round that went out: the reminder stays sent.
            Some(_) => ("sent", None),
        },
        // A round from before a snooze: the snoozed reminder sends its own.
        Some(job) if mail.round.is_some_and(|r| r < job.round_offset) => {
            outbox::attempt_failed(
                &tx,
                mail.id,
                Stamp::from(now),
                "not sent: the reminder was snoozed first",
                None,
            )?;
            tx.commit()?;
            return Ok(true);
        }
        Some(_) => return Ok(false),
        // The medication (and so the reminder) was deleted: nothing left to remind of.
        None => ("cancelled", None),
    };
    outbox::attempt_failed(
        &tx,
        mail.id,
        Stamp::from(now),
        "not sent: the dose was logged or the reminder cancelled first",
        None,
    )?;
    reminders::finish(&tx, reminder_id, reminders::HELD_BY_MAIL, status, reason)?;
    tx.commit()?;
    Ok(true)
}

/// A carer's alert waiting in the queue is not sent once the dose has been handled, or the
/// carer's access has ended. Returns whether it was dropped.
fn drop_if_unwanted(
    conn: &mut Connection,
    id: i64,
    escalation_id: i64,
    now: DateTime<Utc>,
) -> Result<bool, DbError> {
    if escalations::wanted(conn, escalation_id)? {
        return Ok(false);
    }
    outbox::attempt_failed(
        conn,
        id,
        Stamp::from(now),
        "not sent: the dose was handled first, or the carer's access ended",
        None,
    )?;
    Ok(true)
}

/// Records an attempt's outcome, and for a mail that decides its reminder's round, the
/// reminder's.
fn settle(
    conn: &mut Connection,
    mail: &QueuedMail,
    result: Result<(), MailError>,
    now: DateTime<Utc>,
) -> Result<(), DbError> {
    let tx = conn.transaction()?;
    let at = Stamp::from(now);
    // A missing set-up or a refused address is not something a retry changes.
    let (error, retry) = match result {
        Ok(()) => (None, false),
        Err(MailError::NotConfigured) => (Some("E-mail is not configured on this server".to_owned()), false),
        Err(e @ MailError::BadAddress(_)) => (Some(e.to_string()), false),
        Err(e) => (Some(e.to_string()), true),
    };
    let retry_at = retry
        .then(|| {
            next_try(
                mail.attempts + 1,
                mail.backoff_seconds,
                mail.max_attempts,
                mail.retry_until.map(Stamp::instant),
                now,
            )
        })
        .flatten()
        .map(clock::stamp);
    match &error {
        None => outbox::accepted(&tx, mail.id, at)?,
        Some(e) => outbox::attempt_failed(&tx, mail.id, at, e, retry_at.as_deref())?,
    }
    if let (Some(reminder_id), Some(round)) = (mail.reminder_id, mail.round) {
        let (result_code, result_params) = match &error {
            None => ("email_sent", serde_json::json!({ "address": mail.recipient })),
            Some(detail) => ("email_failed", serde_json::json!({ "detail": detail })),
        };
        deliveries::insert(
            &tx,
            &NewDelivery {
                user_id: mail.user_id.unwrap_or_default(),
                reminder_id: Some(reminder_id),
                kind: mail.delivery_kind.as_deref().unwrap_or("reminder"),
                title: mail.title.as_deref().unwrap_or(&mail.subject),
                medication_name: mail.medication_name.as_deref(),
                channel: "email",
                attempted_at: Stamp::from(now),
                error: error.as_deref(),
                fallback: mail.fallback,
                result_code,
                result_params: &result_params.to_string(),
            },
        )?;
        if let Some(others) = outbox::decides(&tx, mail.id)? {
            settle_reminder(
                &tx,
                reminder_id,
                round,
                error.as_deref(),
                retry_at.is_some(),
                others,
                now,
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}

fn settle_reminder(
    conn: &Connection,
    reminder_id: i64,
    round: i64,
    error: Option<&str>,
    retrying: bool,
    others: Option<String>,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let Some(job) = reminders::job(conn, reminder_id)? else {
        return Ok(());
    };
    // The mail's round counts from the reminder's first; its follow-ups from the latest
    // snooze. A mail from before a snooze decides nothing any more.
    let round = round - job.round_offset;
    if round < 0 {
        return Ok(());
    }
    let prefs = notify_prefs::global(conn, job.user_id)?;
    let medication = match job.reminder.medication_id {
        Some(id) => crate::store::medications::find(conn, job.user_id, id)?,
        None => None,
    };
    let followups = followups(&prefs, medication.as_ref().map(|m| &m.rules));
    let next = next_repeat(job.reminder.kind, round, followups, now);
    match error {
        None => reminders::mail_delivered(conn, reminder_id, round, Stamp::from(now), next.as_deref()),
        // A channel of the round still trying decides instead.
        Some(_)
            if !retrying
                && crate::store::channels::round_state(conn, reminder_id, round + job.round_offset)?.0
                    > 0 =>
        {
            Ok(())
        }
        Some(e) => {
            let reason = join_reasons(others.as_deref().unwrap_or_default(), &format!("email: {e}"));
            if retrying {
                reminders::mail_retrying(conn, reminder_id, &reason)
            } else {
                reminders::mail_failed(conn, reminder_id, round, &reason, next.as_deref())
            }
        }
    }
}

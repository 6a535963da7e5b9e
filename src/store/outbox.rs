//! The e-mail queue (`mail_outbox`): mails waiting to be sent, being sent, or done. A mail
//! the mail server accepted is never sent again; one a crash left in doubt keeps its
//! Message-ID, so a resend is recognisably the same message.

use rusqlite::{Connection, OptionalExtension, params};

use super::{stamp_at, stamp_or_null_at};
use crate::db::Stamp;

/// What the mail is about: the account (verification, sign-in code) or a reminder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailKind {
    Account,
    Reminder,
}

impl MailKind {
    fn as_str(self) -> &'static str {
        match self {
            MailKind::Account => "account",
            MailKind::Reminder => "reminder",
        }
    }
}

/// A reminder round a mail belongs to, with what its delivery history row says.
#[derive(Debug, Clone)]
pub struct ReminderRound<'a> {
    pub reminder_id: i64,
    pub round: i64,
    /// reminder, repeat or low_stock.
    pub delivery_kind: &'a str,
    pub title: &'a str,
    pub medication_name: Option<&'a str>,
    pub fallback: bool,
}

/// A mail to queue.
pub struct NewMail<'a> {
    pub kind: MailKind,
    pub user_id: Option<i64>,
    pub reminder: Option<ReminderRound<'a>>,
    pub recipient: &'a str,
    pub subject: &'a str,
    pub text: &'a str,
    pub html: &'a str,
    pub message_id: &'a str,
    pub max_attempts: u32,
    pub backoff_seconds: u32,
    /// Tried again after `max_attempts` until this (a reminder's dose's grace), if set.
    pub retry_until: Option<Stamp>,
    pub now: &'a str,
}

/// Queues a mail, due at once. For a reminder round that already has its mail, nothing
/// is added (false).
pub fn enqueue(conn: &Connection, m: &NewMail<'_>) -> rusqlite::Result<bool> {
    let r = m.reminder.as_ref();
    let changed = conn
        .prepare_cached(
            "INSERT INTO mail_outbox (kind, user_id, reminder_id, round, delivery_kind, title, medication_name,
                                      fallback, recipient, subject, text_body, html_body, message_id, created_at,
                                      max_attempts, backoff_seconds, next_attempt_at, retry_until)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?14, ?17)
             ON CONFLICT (reminder_id, round) DO NOTHING",
        )?
        .execute(params![
            m.kind.as_str(),
            m.user_id,
            r.map(|r| r.reminder_id),
            r.map(|r| r.round),
            r.map(|r| r.delivery_kind),
            r.map(|r| r.title),
            r.and_then(|r| r.medication_name),
            r.is_some_and(|r| r.fallback),
            m.recipient,
            m.subject,
            m.text,
            m.html,
            m.message_id,
            m.now,
            m.max_attempts.max(1),
            m.backoff_seconds.max(1),
            m.retry_until,
        ])?;
    Ok(changed == 1)
}

/// Queues the e-mail of a carer's alert (`escalation_id`), due at once; once per alert
/// (false when it has one).
pub fn enqueue_escalation(conn: &Connection, escalation_id: i64, m: &NewMail<'_>) -> rusqlite::Result<bool> {
    let changed = conn
        .prepare_cached(
            "INSERT INTO mail_outbox (kind, user_id, escalation_id, recipient, subject, text_body, html_body,
                                      message_id, created_at, max_attempts, backoff_seconds, next_attempt_at)
             VALUES ('reminder', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?8)
             ON CONFLICT (escalation_id) WHERE escalation_id IS NOT NULL DO NOTHING",
        )?
        .execute(params![
            m.user_id,
            escalation_id,
            m.recipient,
            m.subject,
            m.text,
            m.html,
            m.message_id,
            m.now,
            m.max_attempts.max(1),
            m.backoff_seconds.max(1),
        ])?;
    Ok(changed == 1)
}

/// A queued mail as the worker sends it.
#[derive(Debug, Clone)]
pub struct QueuedMail {
    pub id: i64,
    pub user_id: Option<i64>,
    pub reminder_id: Option<i64>,
    pub round: Option<i64>,
    /// The carer's alert this mail carries, if it is one.
    pub escalation_id: Option<i64>,
    pub delivery_kind: Option<String>,
    pub title: Option<String>,
    pub medication_name: Option<String>,
    pub fallback: bool,
    pub recipient: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    pub message_id: String,
    pub attempts: i64,
    pub max_attempts: i64,
    pub backoff_seconds: i64,
    pub retry_until: Option<Stamp>,
}

/// Takes up to `limit` mails that are due for sending now.
pub fn claim_due(conn: &Connection, now: Stamp, limit: usize) -> rusqlite::Result<Vec<QueuedMail>> {
    conn.prepare_cached(
        "UPDATE mail_outbox SET sending_since = ?1
         WHERE id IN (SELECT id FROM mail_outbox
                      WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ?1 AND sending_since IS NULL
                      ORDER BY next_attempt_at, id LIMIT ?2)
         RETURNING id, user_id, reminder_id, round, delivery_kind, title, medication_name, fallback, recipient,
                   subject, text_body, html_body, message_id, attempts, max_attempts, backoff_seconds,
                   escalation_id, retry_until",
    )?
    .query_map(params![now, i64::try_from(limit).unwrap_or(i64::MAX)], |row| {
        Ok(QueuedMail {
            id: row.get(0)?,
            user_id: row.get(1)?,
            reminder_id: row.get(2)?,
            round: row.get(3)?,
            delivery_kind: row.get(4)?,
            title: row.get(5)?,
            medication_name: row.get(6)?,
            fallback: row.get(7)?,
            recipient: row.get(8)?,
            subject: row.get(9)?,
            text: row.get(10)?,
            html: row.get(11)?,
            message_id: row.get(12)?,
            attempts: row.get(13)?,
            max_attempts: row.get(14)?,
            backoff_seconds: row.get(15)?,
            escalation_id: row.get(16)?,
            retry_until: stamp_or_null_at(row, 17, "mail_outbox", row.get(0)?)?,
        })
    })?
    .collect()
}

/// When the next mail falls due (none being sent), if any is waiting.
pub fn next_due(conn: &Connection) -> rusqlite::Result<Option<Stamp>> {
    conn.prepare_cached(
        "SELECT id, next_attempt_at FROM mail_outbox WHERE next_attempt_at IS NOT NULL AND sending_since IS NULL
         ORDER BY next_attempt_at LIMIT 1",
    )?
    .query_row([], |row| stamp_at(row, 1, "mail_outbox", row.get(0)?))
    .optional()
}

/// At start (the data directory is locked, so no other process is sending): mails a
/// stopped or killed server was sending go back to the queue. Whether their server took
/// them is unknown; a resend carries the same Message-ID.
pub fn requeue_in_doubt(conn: &Connection) -> rusqlite::Result<usize> {
    conn.execute(
        "UPDATE mail_outbox SET sending_since = NULL WHERE sending_since IS NOT NULL",
        [],
    )
}

/// The mail server accepted the mail: done, its bodies (with their one-use links) dropped.
pub fn accepted(conn: &Connection, id: i64, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE mail_outbox SET accepted_at = ?2, attempts = attempts + 1, next_attempt_at = NULL,
            sending_since = NULL, last_error = NULL, text_body = '', html_body = ''
         WHERE id = ?1",
    )?
    .execute(params![id, now])?;
    Ok(())
}

/// An attempt failed: try again at `retry_at`, or with none, give up.
pub fn attempt_failed(
    conn: &Connection,
    id: i64,
    now: Stamp,
    error: &str,
    retry_at: Option<&str>,
) -> rusqlite::Result<()> {
    match retry_at {
        Some(at) => conn
            .prepare_cached(
                "UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = ?3, sending_since = NULL,
                    last_error = ?2 WHERE id = ?1",
            )?
            .execute(params![id, error, at])?,
        None => conn
            .prepare_cached(
                "UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = NULL, sending_since = NULL,
                    last_error = ?2, failed_at = ?3, text_body = '', html_body = '' WHERE id = ?1",
            )?
            .execute(params![id, error, now])?,
    };
    Ok(())
}

/// Where a reminder round's mail stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailState {
    Waiting,
    Accepted,
    Failed(String),
}

/// The mail of a reminder round, if it has one.
pub fn round_mail(
    conn: &Connection,
    reminder_id: i64,
    round: i64,
) -> rusqlite::Result<Option<(i64, MailState)>> {
    conn.prepare_cached(
        "SELECT id, accepted_at IS NOT NULL, failed_at IS NOT NULL, coalesce(last_error, '')
         FROM mail_outbox WHERE reminder_id = ?1 AND round = ?2",
    )?
    .query_row(params![reminder_id, round], |row| {
        let state = if row.get::<_, bool>(1)? {
            MailState::Accepted
        } else if row.get::<_, bool>(2)? {
            MailState::Failed(row.get(3)?)
        } else {
            MailState::Waiting
        };
        Ok((row.get(0)?, state))
    })
    .optional()
}

/// No push delivered the round: the mail's outcome decides the reminder's.
pub fn let_decide(conn: &Connection, id: i64, other_errors: Option<&str>) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE mail_outbox SET decides = 1, other_errors = ?2 WHERE id = ?1")?
        .execute(params![id, other_errors])?;
    Ok(())
}

/// Whether the mail decides its reminder's round, and the other channels' errors.
pub fn decides(conn: &Connection, id: i64) -> rusqlite::Result<Option<Option<String>>> {
    conn.prepare_cached("SELECT other_errors FROM mail_outbox WHERE id = ?1 AND decides = 1")?
        .query_row([id], |row| row.get(0))
        .optional()
}

/// Forgets mails done (accepted or given up) before `before`.
pub fn prune(conn: &Connection, before: &str) -> rusqlite::Result<usize> {
    conn.execute(
        "DELETE FROM mail_outbox WHERE next_attempt_at IS NULL AND coalesce(accepted_at, failed_at) < ?1",
        [before],
    )
}

/// Whether a mail is due by `now` or being sent.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub fn busy(conn: &Connection, now: Stamp) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM mail_outbox
                        WHERE sending_since IS NOT NULL OR (next_attempt_at IS NOT NULL AND next_attempt_at <= ?1))",
    )?
    .query_row([now], |row| row.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database() -> Connection {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        crate::db::migrations::migrate(&mut conn, dir.path()).unwrap();
        conn
    }

    fn queue(conn: &Connection, now: Stamp) {
        let mail = NewMail {
            kind: MailKind::Account,
            user_id: None,
            reminder: None,
            recipient: "a@b.c",
            subject: "Hello",
            text: "link",
            html: "<p>link</p>",
            message_id: "<x@b.c>",
            max_attempts: 3,
            backoff_seconds: 30,
            retry_until: None,
            now: &now.to_string(),
        };
        assert!(enqueue(conn, &mail).unwrap());
    }

    #[test]
    fn an_accepted_mail_is_never_sent_again_and_one_in_doubt_is() {
        let conn = database();
        queue(&conn, Stamp::at("2026-03-02T09:00:00.000Z"));
        queue(&conn, Stamp::at("2026-03-02T09:00:00.000Z"));
        let taken = claim_due(&conn, Stamp::at("2026-03-02T09:00:00.000Z"), 10).unwrap();
        assert_eq!(taken.len(), 2);
        assert_eq!(taken[0].message_id, "<x@b.c>");
        // Being sent: nobody takes them again.
        assert!(
            claim_due(&conn, Stamp::at("2026-03-02T09:00:01.000Z"), 10)
                .unwrap()
                .is_empty()
        );
        accepted(&conn, taken[0].id, Stamp::at("2026-03-02T09:00:01.000Z")).unwrap();
        // A restart: the one without an answer goes back to the queue, the accepted one not.
        assert_eq!(requeue_in_doubt(&conn).unwrap(), 1);
        let again = claim_due(&conn, Stamp::at("2026-03-02T09:00:02.000Z"), 10).unwrap();
        assert_eq!(again.iter().map(|m| m.id).collect::<Vec<_>>(), vec![taken[1].id]);
        // A failure waits for its retry.
        attempt_failed(
            &conn,
            taken[1].id,
            Stamp::at("2026-03-02T09:00:02.000Z"),
            "refused",
            Some("2026-03-02T09:00:32.000Z"),
        )
        .unwrap();
        assert!(
            claim_due(&conn, Stamp::at("2026-03-02T09:00:31.000Z"), 10)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            claim_due(&conn, Stamp::at("2026-03-02T09:00:32.000Z"), 10)
                .unwrap()
                .len(),
            1
        );
        assert!(busy(&conn, Stamp::at("2026-03-02T09:00:33.000Z")).unwrap());
        accepted(&conn, taken[1].id, Stamp::at("2026-03-02T09:00:33.000Z")).unwrap();
        assert!(!busy(&conn, Stamp::at("2026-03-02T09:00:33.000Z")).unwrap());
        assert_eq!(prune(&conn, "2026-03-03T00:00:00.000Z").unwrap(), 2);
    }
}

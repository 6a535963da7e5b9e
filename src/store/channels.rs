//! A person's channels (ntfy, Gotify, Telegram, webhooks) and the queue of messages to them
//! (`channel_sends`).

use rusqlite::{Connection, OptionalExtension, params};

use super::{stamp_at, stamp_or_null_at};
use crate::db::Stamp;

/// A channel as stored. `secret` never leaves the server.
#[derive(Debug, Clone)]
pub struct Channel {
    pub id: i64,
    /// Whose channel it is.
    pub user_id: i64,
    pub kind: String,
    pub name: String,
    pub config: serde_json::Value,
    pub secret: Option<String>,
    pub enabled: bool,
    /// active, pending (a Telegram chat not linked yet) or disabled.
    pub state: String,
    pub state_reason: Option<String>,
    pub chat_id: Option<i64>,
    pub created_at: Stamp,
    pub last_result: Option<String>,
    pub last_result_at: Option<Stamp>,
}

impl Channel {
    /// Reminders go to it: switched on and not waiting for a link or disabled.
    pub fn usable(&self) -> bool {
        self.enabled && self.state == "active"
    }
}

const COLUMNS: &str = "id, user_id, kind, name, config, secret, enabled, state, state_reason, chat_id,
                       created_at, last_result, last_result_at";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Channel> {
    let config: String = row.get(4)?;
    Ok(Channel {
        id: row.get(0)?,
        user_id: row.get(1)?,
        kind: row.get(2)?,
        name: row.get(3)?,
        config: serde_json::from_str(&config).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(4, rusqlite::types::Type::Text, Box::new(e))
        })?,
        secret: row.get(5)?,
        enabled: row.get(6)?,
        state: row.get(7)?,
        state_reason: row.get(8)?,
        chat_id: row.get(9)?,
        created_at: stamp_at(row, 10, "channels", row.get(0)?)?,
        last_result: row.get(11)?,
        last_result_at: stamp_or_null_at(row, 12, "channels", row.get(0)?)?,
    })
}

/// The user's channels, oldest first.
pub fn list(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<Channel>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM channels WHERE user_id = ?1 ORDER BY id"
    ))?
    .query_map([user_id], from_row)?
    .collect()
}

/// One of the user's channels; `None` for another user's or an unknown id.
pub fn find(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<Option<Channel>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM channels WHERE id = ?1 AND user_id = ?2"
    ))?
    .query_row([id, user_id], from_row)
    .optional()
}

/// A channel by id alone (the engine's view).
pub fn by_id(conn: &Connection, id: i64) -> rusqlite::Result<Option<Channel>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM channels WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// A new channel.
pub struct NewChannel<'a> {
    pub user_id: i64,
    pub kind: &'a str,
    pub name: &'a str,
    pub config: &'a serde_json::Value,
    pub secret: Option<&'a str>,
    pub state: &'a str,
    pub link_code_hash: Option<&'a str>,
    pub link_expires_at: Option<Stamp>,
    pub now: &'a str,
}

pub fn insert(conn: &Connection, c: &NewChannel<'_>) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO channels (user_id, kind, name, config, secret, state, link_code_hash, link_expires_at, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING id",
    )?
    .query_row(
        params![
            c.user_id,
            c.kind,
            c.name,
            c.config.to_string(),
            c.secret,
            c.state,
            c.link_code_hash,
            c.link_expires_at,
            c.now
        ],
        |row| row.get(0),
    )
}

/// Saves a channel's name, configuration, secret and switch.
pub fn update(conn: &Connection, c: &Channel) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE channels SET name = ?2, config = ?3, secret = ?4, enabled = ?5 WHERE id = ?1",
    )?
    .execute(params![c.id, c.name, c.config.to_string(), c.secret, c.enabled])?;
    Ok(())
}

/// Deletes one of the user's channels; false when there is none with that id.
pub fn delete(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM channels WHERE id = ?1 AND user_id = ?2")?
        .execute([id, user_id])?
        == 1)
}

/// Sets a channel's state and the reason the app shows.
pub fn set_state(conn: &Connection, id: i64, state: &str, reason: Option<&str>) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE channels SET state = ?2, state_reason = ?3 WHERE id = ?1")?
        .execute(params![id, state, reason])?;
    Ok(())
}

/// Notes the outcome of a send for the channel list.
pub fn note_result(conn: &Connection, id: i64, result: &str, at: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE channels SET last_result = ?2, last_result_at = ?3 WHERE id = ?1")?
        .execute(params![id, result, at])?;
    Ok(())
}

/// Replaces a pending Telegram channel's link code.
pub fn set_link_code(conn: &Connection, id: i64, hash: &str, expires_at: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE channels SET link_code_hash = ?2, link_expires_at = ?3, state = 'pending', chat_id = NULL,
            state_reason = NULL WHERE id = ?1",
    )?
    .execute(params![id, hash, expires_at])?;
    Ok(())
}

/// Links the chat to the channel whose unexpired code hashes to `hash`, once. Returns the
/// channel's id.
pub fn link_chat(conn: &Connection, hash: &str, chat_id: i64, now: Stamp) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(
        "UPDATE channels SET chat_id = ?2, state = 'active', state_reason = NULL, link_code_hash = NULL,
            link_expires_at = NULL
         WHERE link_code_hash = ?1 AND link_expires_at > ?3 AND kind = 'telegram' RETURNING id",
    )?
    .query_row(params![hash, chat_id, now], |row| row.get(0))
    .optional()
}

/// Unlinks every channel bound to a chat (the chat sent /stop). Returns how many.
pub fn unlink_chat(conn: &Connection, chat_id: i64) -> rusqlite::Result<usize> {
    conn.prepare_cached(
        "UPDATE channels SET state = 'disabled', state_reason = 'telegram_stopped'
         WHERE kind = 'telegram' AND chat_id = ?1 AND state = 'active'",
    )?
    .execute([chat_id])
}

/// The user's Telegram channel linked to a chat, for a button pressed there.
pub fn telegram_of_chat(conn: &Connection, chat_id: i64) -> rusqlite::Result<Vec<Channel>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM channels WHERE kind = 'telegram' AND chat_id = ?1 AND state = 'active'"
    ))?
    .query_map([chat_id], from_row)?
    .collect()
}

// --- The queue ---------------------------------------------------------------------------

/// A message to queue for a channel.
pub struct NewSend<'a> {
    pub channel_id: i64,
    pub user_id: i64,
    pub reminder_id: Option<i64>,
    pub round: Option<i64>,
    pub escalation_id: Option<i64>,
    pub event: &'a str,
    pub delivery_kind: Option<&'a str>,
    pub title: &'a str,
    pub medication_name: Option<&'a str>,
    pub fallback: bool,
    pub message: &'a serde_json::Value,
    pub idempotency_key: &'a str,
    pub now: &'a str,
    pub give_up_at: Stamp,
}

/// Queues a message, due at once. A reminder's round (or its handled message) already
/// queued for the channel is not queued twice; a handled message queued again takes the
/// newer outcome and goes out again. Returns whether something was queued.
pub fn enqueue(conn: &Connection, s: &NewSend<'_>) -> rusqlite::Result<bool> {
    let replace = s.event == "reminder.handled";
    let sql = format!(
        "INSERT INTO channel_sends (channel_id, user_id, reminder_id, round, escalation_id, event, delivery_kind,
                                    title, medication_name, fallback, message, idempotency_key, created_at,
                                    give_up_at, next_attempt_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?13)
         ON CONFLICT (channel_id, reminder_id, round, event) WHERE reminder_id IS NOT NULL DO {}",
        if replace {
            "UPDATE SET message = excluded.message, next_attempt_at = excluded.next_attempt_at,
                        give_up_at = excluded.give_up_at, attempts = 0, delivered_at = NULL, failed_at = NULL,
                        last_error = NULL"
        } else {
            "NOTHING"
        }
    );
    Ok(conn.prepare_cached(&sql)?.execute(params![
        s.channel_id,
        s.user_id,
        s.reminder_id,
        s.round,
        s.escalation_id,
        s.event,
        s.delivery_kind,
        s.title,
        s.medication_name,
        s.fallback,
        s.message.to_string(),
        s.idempotency_key,
        s.now,
        s.give_up_at,
    ])? == 1)
}

/// A queued message as the worker sends it.
#[derive(Debug, Clone)]
pub struct QueuedSend {
    pub id: i64,
    pub channel_id: i64,
    pub user_id: i64,
    pub reminder_id: Option<i64>,
    pub round: Option<i64>,
    /// A carer's alert's message: that alert.
    pub escalation_id: Option<i64>,
    pub event: String,
    pub delivery_kind: Option<String>,
    pub title: String,
    pub medication_name: Option<String>,
    pub fallback: bool,
    pub message: serde_json::Value,
    pub idempotency_key: String,
    pub attempts: i64,
    pub give_up_at: Stamp,
}

/// Takes up to `limit` messages due now, never two of the same channel's reminder at once.
pub fn claim_due(conn: &Connection, now: Stamp, limit: usize) -> rusqlite::Result<Vec<QueuedSend>> {
    conn.prepare_cached(
        "UPDATE channel_sends SET sending_since = ?1
         WHERE id IN (SELECT id FROM channel_sends
                      WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ?1 AND sending_since IS NULL
                      ORDER BY next_attempt_at, id LIMIT ?2)
         RETURNING id, channel_id, user_id, reminder_id, round, event, delivery_kind, title,
                   medication_name, fallback, message, idempotency_key, attempts, give_up_at, escalation_id",
    )?
    .query_map(params![now, i64::try_from(limit).unwrap_or(i64::MAX)], |row| {
        let message: String = row.get(10)?;
        Ok(QueuedSend {
            id: row.get(0)?,
            channel_id: row.get(1)?,
            user_id: row.get(2)?,
            reminder_id: row.get(3)?,
            round: row.get(4)?,
            escalation_id: row.get(14)?,
            event: row.get(5)?,
            delivery_kind: row.get(6)?,
            title: row.get(7)?,
            medication_name: row.get(8)?,
            fallback: row.get(9)?,
            message: serde_json::from_str(&message).unwrap_or(serde_json::Value::Null),
            idempotency_key: row.get(11)?,
            attempts: row.get(12)?,
            give_up_at: stamp_at(row, 13, "channel_sends", row.get(0)?)?,
        })
    })?
    .collect()
}

/// When the next message falls due, if any is waiting.
pub fn next_due(conn: &Connection) -> rusqlite::Result<Option<Stamp>> {
    conn.prepare_cached(
        "SELECT id, next_attempt_at FROM channel_sends WHERE next_attempt_at IS NOT NULL AND sending_since IS NULL
         ORDER BY next_attempt_at LIMIT 1",
    )?
    .query_row([], |row| stamp_at(row, 1, "channel_sends", row.get(0)?))
    .optional()
}

/// Messages a stopped server was sending go out again (with the same idempotency key).
pub fn requeue_in_doubt(conn: &Connection) -> rusqlite::Result<usize> {
    conn.prepare_cached("UPDATE channel_sends SET sending_since = NULL WHERE sending_since IS NOT NULL")?
        .execute([])
}

/// The channel took the message; `remote_id` is its own name for it.
pub fn delivered(conn: &Connection, id: i64, at: &str, remote_id: Option<&str>) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE channel_sends SET delivered_at = ?2, sending_since = NULL, next_attempt_at = NULL,
            attempts = attempts + 1, last_error = NULL, remote_id = coalesce(?3, remote_id)
         WHERE id = ?1",
    )?
    .execute(params![id, at, remote_id])?;
    Ok(())
}

/// An attempt failed: tried again at `retry_at`, or given up (`None`).
pub fn attempt_failed(
    conn: &Connection,
    id: i64,
    at: &str,
    error: &str,
    retry_at: Option<&str>,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE channel_sends SET attempts = attempts + 1, sending_since = NULL, last_error = ?3,
            next_attempt_at = ?4, failed_at = CASE WHEN ?4 IS NULL THEN ?2 END
         WHERE id = ?1",
    )?
    .execute(params![id, at, error, retry_at])?;
    Ok(())
}

/// Drops what is still waiting for a channel (it was disabled or deleted).
pub fn drop_waiting(conn: &Connection, channel_id: i64, at: &str, why: &str) -> rusqlite::Result<usize> {
    conn.prepare_cached(
        "UPDATE channel_sends SET next_attempt_at = NULL, failed_at = ?2, last_error = ?3
         WHERE channel_id = ?1 AND next_attempt_at IS NOT NULL AND sending_since IS NULL",
    )?
    .execute(params![channel_id, at, why])
}

/// How a reminder's round fares on the channels chosen to deliver it: (still waiting,
/// delivered) counts.
pub fn round_state(conn: &Connection, reminder_id: i64, round: i64) -> rusqlite::Result<(i64, i64)> {
    conn.prepare_cached(
        "SELECT count(*) FILTER (WHERE next_attempt_at IS NOT NULL OR sending_since IS NOT NULL),
                count(*) FILTER (WHERE delivered_at IS NOT NULL)
         FROM channel_sends WHERE reminder_id = ?1 AND round = ?2 AND delivery_kind IS NOT NULL",
    )?
    .query_row([reminder_id, round], |row| Ok((row.get(0)?, row.get(1)?)))
}

/// Stops the reminder's messages that are still waiting (the dose was handled). A reminder
/// they held (no push took its round, only a channel still could) is handed back to the
/// dispatcher, which ends it as an answered one, when no message or e-mail of it is still on
/// its way: one in flight settles it when it returns, a waiting e-mail when the queue drops it.
pub fn stop_waiting_for_reminder(conn: &Connection, reminder_id: i64, at: Stamp) -> rusqlite::Result<usize> {
    let stopped = conn
        .prepare_cached(
            "UPDATE channel_sends SET next_attempt_at = NULL, failed_at = ?2,
                last_error = 'not sent: the dose was handled first'
             WHERE reminder_id = ?1 AND event = 'reminder.due' AND next_attempt_at IS NOT NULL
               AND sending_since IS NULL",
        )?
        .execute(params![reminder_id, at])?;
    conn.prepare_cached(
        "UPDATE reminders SET claimed_until = NULL, next_attempt_at = ?2
         WHERE id = ?1 AND claimed_until = ?3
           AND NOT EXISTS (SELECT 1 FROM channel_sends WHERE reminder_id = ?1 AND event = 'reminder.due'
                           AND (next_attempt_at IS NOT NULL OR sending_since IS NOT NULL))
           AND NOT EXISTS (SELECT 1 FROM mail_outbox WHERE reminder_id = ?1
                           AND accepted_at IS NULL AND failed_at IS NULL)",
    )?
    .execute(params![reminder_id, at, crate::store::reminders::HELD_BY_MAIL])?;
    Ok(stopped)
}

/// The Telegram message a reminder (its latest round, or a carer's latest alert) went out as
/// in a chat, to edit after a press.
pub fn remote_id_of(
    conn: &Connection,
    channel_id: i64,
    reminder_id: i64,
) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached(
        "SELECT remote_id FROM channel_sends
         WHERE channel_id = ?1 AND reminder_id = ?2 AND remote_id IS NOT NULL AND event <> 'reminder.handled'
         ORDER BY id DESC LIMIT 1",
    )?
    .query_row([channel_id, reminder_id], |row| row.get(0))
    .optional()
}

/// Done messages are forgotten after a while.
pub fn prune(conn: &Connection, before: &str) -> rusqlite::Result<usize> {
    conn.prepare_cached(
        "DELETE FROM channel_sends WHERE next_attempt_at IS NULL AND sending_since IS NULL
            AND coalesce(delivered_at, failed_at, created_at) < ?1",
    )?
    .execute([before])
}

/// Whether a message is due by `now` or being sent.
pub fn busy(conn: &Connection, now: Stamp) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM channel_sends WHERE sending_since IS NOT NULL
                        OR (next_attempt_at IS NOT NULL AND next_attempt_at <= ?1))",
    )?
    .query_row([now], |row| row.get(0))
}

/// Queues the handled message for every channel that shows (or is being sent) a reminder
/// (only carers' alerts when `carers_only`: to each channel that has one, a webhook whether
/// or not it asked for `reminder.handled`, as it was sent the alert), and stops its messages
/// still waiting. Called where the reminder is handled, in the same transaction. Returns
/// how many were queued.
pub fn queue_handled(
    conn: &Connection,
    reminder_id: i64,
    outcome: &str,
    carers_only: bool,
    now: Stamp,
) -> rusqlite::Result<usize> {
    let queued = conn
        .prepare_cached(
            "INSERT INTO channel_sends (channel_id, user_id, reminder_id, round, event, title, medication_name,
                                        message, idempotency_key, created_at, give_up_at, next_attempt_at)
             SELECT s.channel_id, s.user_id, s.reminder_id, 0, 'reminder.handled', s.title, s.medication_name,
                    json_object('outcome', ?2),
                    CASE c.kind WHEN 'webhook' THEN 'msg_pillbox_r' || s.reminder_id || '_' || ?2 ELSE s.idempotency_key END,
                    ?3, strftime('%Y-%m-%dT%H:%M:%fZ', ?3, CASE c.kind WHEN 'webhook' THEN '+24 hours' ELSE '+1 hour' END), ?3
             FROM channel_sends s JOIN channels c ON c.id = s.channel_id
             -- Per channel, the latest message it showed: after a withdrawn alert and a new
             -- one, the new one is replaced (ntfy and Gotify by its key, Telegram by its id).
             WHERE s.id IN (SELECT max(l.id) FROM channel_sends l
                            WHERE l.reminder_id = ?1
                              AND ((l.event = 'reminder.due' AND NOT ?4) OR l.event = 'escalation.sent')
                              AND (l.delivered_at IS NOT NULL OR l.sending_since IS NOT NULL)
                            GROUP BY l.channel_id)
               -- A webhook hears of it only when it asked to.
               AND (c.kind <> 'webhook' OR ?4
                    OR EXISTS (SELECT 1 FROM json_each(c.config, '$.events') WHERE value = 'reminder.handled'))
             ON CONFLICT (channel_id, reminder_id, round, event) WHERE reminder_id IS NOT NULL DO UPDATE SET
                message = excluded.message, idempotency_key = excluded.idempotency_key,
                next_attempt_at = excluded.next_attempt_at, give_up_at = excluded.give_up_at,
                attempts = 0, delivered_at = NULL, failed_at = NULL, last_error = NULL, remote_id = NULL",
        )?
        .execute(params![reminder_id, outcome, now, carers_only])?;
    if !carers_only {
        stop_waiting_for_reminder(conn, reminder_id, now)?;
    }
    Ok(queued)
}

/// How a handled reminder ended, for the message that replaces it on a channel.
#[derive(Debug, Clone)]
pub struct Handled {
    /// taken, skipped or missed (the entry that answered it), or None.
    pub status: Option<String>,
    /// The entry's time.
    pub at: Option<Stamp>,
    /// Who logged it, by the name on their account: never an e-mail address, which a
    /// channel (a public ntfy topic) must not carry; `None` when they set no name.
    pub by: Option<String>,
    /// A snoozed reminder's new time.
    pub snoozed_until: Option<Stamp>,
}

pub fn handled_view(conn: &Connection, reminder_id: i64) -> rusqlite::Result<Option<Handled>> {
    conn.prepare_cached(
        "SELECT CASE WHEN r.answered_at IS NOT NULL THEN coalesce(h.status, 'taken') END, h.taken_at,
                (SELECT nullif(trim(u.first_name || ' ' || u.last_name), '') FROM users u WHERE u.id = h.logged_by),
                r.snoozed_until, h.id
         FROM reminders r LEFT JOIN dose_history h ON h.id = r.history_id WHERE r.id = ?1",
    )?
    .query_row([reminder_id], |row| {
        Ok(Handled {
            status: row.get(0)?,
            at: match row.get::<_, Option<i64>>(4)? {
                Some(entry) => stamp_or_null_at(row, 1, "dose_history", entry)?,
                None => None,
            },
            by: row.get(2)?,
            snoozed_until: stamp_or_null_at(row, 3, "reminders", reminder_id)?,
        })
    })
    .optional()
}

/// The round's messages to channels decide the reminder (no push delivered it).
pub fn let_decide(conn: &Connection, reminder_id: i64, round: i64) -> rusqlite::Result<usize> {
    conn.prepare_cached(
        "UPDATE channel_sends SET decides = 1 WHERE reminder_id = ?1 AND round = ?2 AND delivery_kind IS NOT NULL",
    )?
    .execute([reminder_id, round])
}

/// Whether a queued message decides its reminder's round (read when it is settled: the
/// round may have been finished while it was out).
pub fn decides(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT decides FROM channel_sends WHERE id = ?1")?
        .query_row([id], |row| row.get(0))
        .optional()
        .map(|d| d.unwrap_or(false))
}

/// The account holder's webhooks that were told a carer was alerted (`escalation.sent`)
/// hear that the alert no longer holds (the clock went back: the dose is not late after all):
/// `escalation.withdrawn`, with the alert's data and `reason: clock_corrected`. Returns how
/// many were queued.
pub fn queue_escalation_withdrawn(
    conn: &Connection,
    escalation_id: i64,
    now: Stamp,
) -> rusqlite::Result<usize> {
    conn.prepare_cached(
        "INSERT INTO channel_sends (channel_id, user_id, event, title, message, idempotency_key, created_at,
                                    give_up_at, next_attempt_at)
         SELECT s.channel_id, s.user_id, 'escalation.withdrawn',
                json_extract(s.message, '$.data.person') || ': the alert about a dose was withdrawn',
                json_set(s.message,
                         '$.title', json_extract(s.message, '$.data.person') || ': the alert about a dose was withdrawn',
                         '$.body', 'The server''s clock was corrected: the dose is not overdue yet.',
                         '$.data.reason', 'clock_corrected'),
                s.idempotency_key || '_withdrawn', ?2, strftime('%Y-%m-%dT%H:%M:%fZ', ?2, '+24 hours'), ?2
         FROM channel_sends s JOIN channels c ON c.id = s.channel_id
         WHERE s.idempotency_key = 'msg_pillbox_escalation_' || ?1 || '_owner' AND s.event = 'escalation.sent'
           AND c.enabled = 1 AND c.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM channel_sends w WHERE w.channel_id = s.channel_id
                           AND w.idempotency_key = s.idempotency_key || '_withdrawn')",
    )?
    .execute(params![escalation_id, now])
}

/// Queues an event (`dose.logged`, `dose.missed`, …) for every webhook of the user that
/// subscribed to it; `key` (the webhook-id) names the event, so it is queued once. Returns
/// how many were queued.
pub fn queue_event(
    conn: &Connection,
    user_id: i64,
    event: &str,
    title: &str,
    message: &serde_json::Value,
    key: &str,
    now: Stamp,
) -> rusqlite::Result<usize> {
    conn.prepare_cached(
        "INSERT INTO channel_sends (channel_id, user_id, event, title, message, idempotency_key, created_at,
                                    give_up_at, next_attempt_at)
         SELECT c.id, c.user_id, ?2, ?3, ?4, ?5, ?6, strftime('%Y-%m-%dT%H:%M:%fZ', ?6, '+24 hours'), ?6
         FROM channels c
         WHERE c.user_id = ?1 AND c.kind = 'webhook' AND c.enabled = 1 AND c.state = 'active'
           AND EXISTS (SELECT 1 FROM json_each(c.config, '$.events') WHERE value = ?2)
           AND NOT EXISTS (SELECT 1 FROM channel_sends s WHERE s.channel_id = c.id AND s.idempotency_key = ?5)",
    )?
    .execute(params![user_id, event, title, message.to_string(), key, now])
}

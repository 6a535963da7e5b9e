//! The delivery history: every attempt to deliver a notification, per channel.

use rusqlite::types::Value;
use rusqlite::{Connection, params, params_from_iter};
use serde::Serialize;
use utoipa::ToSchema;

use super::stamp_at;
use crate::db::Stamp;
use crate::domain::notification::DeliveryMethod;

/// One attempt to deliver a notification over one channel.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Delivery {
    pub id: i64,
    /// The reminder it delivered; None for a test or once the reminder is gone.
    pub notification_id: Option<i64>,
    /// reminder, repeat, low_stock, refill, batch_expiring, batch_expired or test.
    pub kind: String,
    pub title: String,
    pub medication_name: Option<String>,
    pub channel: DeliveryMethod,
    /// When it was tried (RFC 3339, UTC).
    #[schema(value_type = String)]
    pub attempted_at: Stamp,
    /// sent or failed.
    pub result: String,
    /// Why it failed.
    pub error: Option<String>,
    /// E-mail was used because every push failed.
    pub fallback: bool,
    /// The title as a code the app translates with `title_params`: `dose`, `dose_repeat`,
    /// `low_stock`, `refill`, `batch_expiring`, `batch_expired` or `test` (`title` keeps the
    /// words it went out with).
    pub title_code: String,
    /// `name`: the medication's name, when there is one; `person`: whose dose it is, when it
    /// is someone else's in the account (the sent `title` names them too) and that can still
    /// be found (a deleted medication's cannot).
    #[schema(value_type = Object)]
    pub title_params: serde_json::Value,
    /// What happened, as a code the app translates with `result_params` (`push_sent`,
    /// `push_no_device`, `push_failed`, `push_off`, `email_sent`, `email_failed`,
    /// `email_unavailable`, `email_unverified`, `email_off`, …); null on rows older than codes.
    #[schema(required = true)]
    pub result_code: Option<String>,
    /// The values the code names (`delivered`, `devices`, `address`, `detail`; for
    /// `channel_sent` / `channel_failed`: `name`, `kind`, `detail`, `retrying`).
    #[schema(value_type = Object)]
    pub result_params: serde_json::Value,
    /// For a channel (`channel:<id>`): its kind (ntfy, gotify, telegram, webhook) and name,
    /// kept when the channel is deleted.
    #[schema(required = true)]
    pub channel_kind: Option<String>,
    #[schema(required = true)]
    pub channel_name: Option<String>,
}

/// The code of a delivery's title, from what it delivered.
fn title_code(kind: &str) -> &'static str {
    match kind {
        "repeat" => "dose_repeat",
        "low_stock" => "low_stock",
        "refill" => "refill",
        "batch_expiring" => "batch_expiring",
        "batch_expired" => "batch_expired",
        "test" => "test",
        _ => "dose",
    }
}

/// The values of a delivery's title: the medication and, for someone else's dose, the person.
fn title_params(medication_name: Option<&str>, person_name: Option<&str>) -> serde_json::Value {
    let mut params = serde_json::Map::new();
    if let Some(name) = medication_name {
        params.insert("name".into(), name.into());
    }
    if let Some(person) = person_name {
        params.insert("person".into(), person.into());
    }
    serde_json::Value::Object(params)
}

fn channel(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<DeliveryMethod> {
    let text: String = row.get(index)?;
    text.parse().map_err(|_| {
        rusqlite::Error::FromSqlConversionFailure(
            index,
            rusqlite::types::Type::Text,
            format!("unexpected channel {text:?}").into(),
        )
    })
}

/// A new row of the history (its id is assigned on insert).
pub struct NewDelivery<'a> {
    pub user_id: i64,
    pub reminder_id: Option<i64>,
    pub kind: &'a str,
    pub title: &'a str,
    pub medication_name: Option<&'a str>,
    pub channel: &'a str,
    pub attempted_at: Stamp,
    pub error: Option<&'a str>,
    pub fallback: bool,
    /// What happened, as a code, and its values as a JSON object.
    pub result_code: &'a str,
    pub result_params: &'a str,
}

/// Records an attempt. A reminder deleted while it was being sent (its medication went)
/// leaves the row without a reminder rather than losing it.
pub fn insert(conn: &Connection, d: &NewDelivery<'_>) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO deliveries (user_id, reminder_id, kind, title, medication_name, channel, attempted_at,
                                 result, error, fallback, result_code, result_params, channel_kind, channel_name)
         SELECT ?1, (SELECT id FROM reminders WHERE id = ?2), ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, c.kind, c.name
         FROM (SELECT 1) LEFT JOIN channels c ON ?6 = 'channel:' || c.id",
    )?
    .execute(params![
        d.user_id,
        d.reminder_id,
        d.kind,
        d.title,
        d.medication_name,
        d.channel,
        d.attempted_at,
        if d.error.is_none() { "sent" } else { "failed" },
        d.error,
        d.fallback,
        d.result_code,
        d.result_params
    ])?;
    Ok(())
}

/// A page of the user's delivery history, newest first, between two instants.
pub fn page(
    conn: &Connection,
    user_id: i64,
    from: Option<&str>,
    until: Option<&str>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(Vec<Delivery>, i64)> {
    let mut clause = String::from("user_id = ?");
    let mut values = vec![Value::Integer(user_id)];
    if let Some(from) = from {
        clause.push_str(" AND attempted_at >= ?");
        values.push(Value::Text(from.to_owned()));
    }
    if let Some(until) = until {
        clause.push_str(" AND attempted_at < ?");
        values.push(Value::Text(until.to_owned()));
    }
    let total: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM deliveries WHERE {clause}"))?
        .query_row(params_from_iter(values.iter()), |row| row.get(0))?;
    values.push(Value::Integer(limit));
    values.push(Value::Integer(offset));
    let rows = conn
        .prepare_cached(&format!(
            "SELECT id, reminder_id, kind, title, medication_name, channel, attempted_at, result, error, fallback,
                    result_code, result_params, channel_kind, channel_name,
                    (SELECT p.name FROM reminders r
                     JOIN medications m ON m.id = r.medication_id
                     JOIN people p ON p.id = m.person_id AND p.is_self = 0
                     WHERE r.id = deliveries.reminder_id) AS person_name
             FROM deliveries WHERE {clause} ORDER BY attempted_at DESC, id DESC LIMIT ? OFFSET ?"
        ))?
        .query_map(params_from_iter(values.iter()), |row| {
            let kind: String = row.get(2)?;
            let medication_name: Option<String> = row.get(4)?;
            let params: Option<String> = row.get(11)?;
            let person_name: Option<String> = row.get(14)?;
            Ok(Delivery {
                id: row.get(0)?,
                notification_id: row.get(1)?,
                title_code: title_code(&kind).to_owned(),
                title_params: title_params(medication_name.as_deref(), person_name.as_deref()),
                kind,
                title: row.get(3)?,
                medication_name,
                channel: channel(row, 5)?,
                attempted_at: stamp_at(row, 6, "deliveries", row.get(0)?)?,
                result: row.get(7)?,
                error: row.get(8)?,
                fallback: row.get(9)?,
                result_code: row.get(10)?,
                result_params: params
                    .and_then(|p| serde_json::from_str(&p).ok())
                    .unwrap_or_else(|| serde_json::json!({})),
                channel_kind: row.get(12)?,
                channel_name: row.get(13)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((rows, total))
}

// --- Each push of a reminder round, before and after ------------------------------------

/// Notes that a round's push to a subscription is about to be sent; answers whether it
/// already went out (a dispatcher before a crash got the push service's answer).
pub fn push_starting(
    conn: &Connection,
    reminder_id: i64,
    round: i64,
    subscription_id: i64,
    now: Stamp,
) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "INSERT INTO push_sends (reminder_id, round, subscription_id, started_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT DO NOTHING",
    )?
    .execute(params![reminder_id, round, subscription_id, now])?;
    conn.prepare_cached(
        "SELECT sent_at IS NOT NULL FROM push_sends WHERE reminder_id = ?1 AND round = ?2 AND subscription_id = ?3",
    )?
    .query_row(params![reminder_id, round, subscription_id], |row| row.get(0))
}

/// The push service accepted a round's push to a subscription.
pub fn push_sent(
    conn: &Connection,
    reminder_id: i64,
    round: i64,
    subscription_id: i64,
    now: Stamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE push_sends SET sent_at = ?4 WHERE reminder_id = ?1 AND round = ?2 AND subscription_id = ?3",
    )?
    .execute(params![reminder_id, round, subscription_id, now])?;
    Ok(())
}

/// A round's result is recorded: its pushes need no more remembering.
pub fn forget_pushes(conn: &Connection, reminder_id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM push_sends WHERE reminder_id = ?1")?
        .execute([reminder_id])?;
    Ok(())
}

/// Pushes a crash left in doubt (started, no answer recorded).
pub fn pushes_in_doubt(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT count(*) FROM push_sends WHERE sent_at IS NULL",
        [],
        |row| row.get(0),
    )
}

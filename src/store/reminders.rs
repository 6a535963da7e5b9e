//! Planned reminders (the spec's scheduled notifications).

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct Reminder {
    pub id: i64,
    pub title: String,
    pub medication_id: i64,
    pub medication_name: String,
    pub scheduled_time: String,
    pub reminder_time: String,
    pub status: String,
    pub message: Option<String>,
}

/// Brings a medication's future unsent reminders in line with `planned` (scheduled,
/// reminder) pairs: ones no longer planned are removed, new ones added, the rest keep their
/// ids. Sent, failed and cancelled reminders, and the past, stay as they are. Returns how
/// many were added.
pub fn replace_future(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    planned: &[(String, String)],
    now: &str,
) -> rusqlite::Result<usize> {
    let wanted: std::collections::HashSet<&str> =
        planned.iter().map(|(scheduled, _)| scheduled.as_str()).collect();
    let mut existing = conn.prepare_cached(
        "SELECT id, scheduled_time FROM reminders WHERE medication_id = ?1 AND status = 'scheduled' AND scheduled_time > ?2",
    )?;
    let stale: Vec<i64> = existing
        .query_map(params![medication_id, now], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })?
        .filter_map(Result::ok)
        .filter(|(_, scheduled)| !wanted.contains(scheduled.as_str()))
        .map(|(id, _)| id)
        .collect();
    for id in stale {
        conn.execute("DELETE FROM reminders WHERE id = ?1", [id])?;
    }
    let mut insert = conn.prepare_cached(
        "INSERT INTO reminders (user_id, medication_id, scheduled_time, reminder_time, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (medication_id, scheduled_time) DO NOTHING",
    )?;
    let mut added = 0;
    for (scheduled, reminder) in planned {
        added += insert.execute(params![user_id, medication_id, scheduled, reminder, now])?;
    }
    Ok(added)
}

/// A page of the user's reminders, soonest first, with the total.
pub fn page(
    conn: &Connection,
    user_id: i64,
    status: Option<&str>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(Vec<Reminder>, i64)> {
    let mut clause = String::from("r.user_id = ?");
    let mut values = vec![Value::Integer(user_id)];
    if let Some(status) = status {
        clause.push_str(" AND r.status = ?");
        values.push(Value::Text(status.to_owned()));
    }
    let total: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM reminders r WHERE {clause}"))?
        .query_row(params_from_iter(values.iter()), |row| row.get(0))?;
    values.push(Value::Integer(limit));
    values.push(Value::Integer(offset));
    let rows = conn
        .prepare_cached(&format!(
            "SELECT r.id, m.id, m.name, r.scheduled_time, r.reminder_time, r.status
             FROM reminders r JOIN medications m ON m.id = r.medication_id
             WHERE {clause} ORDER BY r.scheduled_time, r.id LIMIT ? OFFSET ?"
        ))?
        .query_map(params_from_iter(values.iter()), |row| {
            let name: String = row.get(2)?;
            Ok(Reminder {
                id: row.get(0)?,
                title: format!("Time for {name}"),
                medication_id: row.get(1)?,
                medication_name: name,
                scheduled_time: row.get(3)?,
                reminder_time: row.get(4)?,
                status: row.get(5)?,
                message: None,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((rows, total))
}

/// The status of one of the user's reminders, if it is theirs.
pub fn status(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        "SELECT status FROM reminders WHERE user_id = ?1 AND id = ?2",
        [user_id, id],
        |row| row.get(0),
    )
    .optional()
}

pub fn cancel(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<bool> {
    let changed = conn.execute(
        "UPDATE reminders SET status = 'cancelled' WHERE user_id = ?1 AND id = ?2 AND status = 'scheduled'",
        [user_id, id],
    )?;
    Ok(changed == 1)
}

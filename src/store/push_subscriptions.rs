//! Web Push subscriptions, one per browser (endpoint).

use crate::db::Stamp;
use rusqlite::{Connection, params};

#[derive(Debug, Clone)]
pub struct Subscription {
    pub id: i64,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
}

/// Saves a browser's subscription for the user. An endpoint belongs to one browser: when
/// another account signs in there, the same subscription (same keys) moves to it; an
/// endpoint sent with other keys than another account's is refused (false), so nobody can
/// take over someone's device with a copied endpoint.
pub fn upsert(
    conn: &Connection,
    user_id: i64,
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    user_agent: Option<&str>,
    now: Stamp,
) -> rusqlite::Result<bool> {
    let changed = conn.execute(
        "INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, user_agent, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id, p256dh = excluded.p256dh,
            auth = excluded.auth, user_agent = excluded.user_agent
         WHERE push_subscriptions.user_id = excluded.user_id
            OR (push_subscriptions.p256dh = excluded.p256dh AND push_subscriptions.auth = excluded.auth)",
        params![user_id, endpoint, p256dh, auth, user_agent, now],
    )?;
    Ok(changed == 1)
}

pub fn remove(conn: &Connection, user_id: i64, endpoint: &str) -> rusqlite::Result<bool> {
    Ok(conn.execute(
        "DELETE FROM push_subscriptions WHERE user_id = ?1 AND endpoint = ?2",
        params![user_id, endpoint],
    )? == 1)
}

pub fn delete(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM push_subscriptions WHERE id = ?1", [id])?;
    Ok(())
}

pub fn find(conn: &Connection, id: i64) -> rusqlite::Result<Option<Subscription>> {
    use rusqlite::OptionalExtension;
    conn.prepare_cached("SELECT id, endpoint, p256dh, auth FROM push_subscriptions WHERE id = ?1")?
        .query_row([id], |row| {
            Ok(Subscription {
                id: row.get(0)?,
                endpoint: row.get(1)?,
                p256dh: row.get(2)?,
                auth: row.get(3)?,
            })
        })
        .optional()
}

pub fn for_user(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<Subscription>> {
    conn.prepare_cached(
        "SELECT id, endpoint, p256dh, auth FROM push_subscriptions WHERE user_id = ?1 ORDER BY id",
    )?
    .query_map([user_id], |row| {
        Ok(Subscription {
            id: row.get(0)?,
            endpoint: row.get(1)?,
            p256dh: row.get(2)?,
            auth: row.get(3)?,
        })
    })?
    .collect()
}

/// Whether the user has any subscribed device.
pub fn any_for_user(conn: &Connection, user_id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM push_subscriptions WHERE user_id = ?1)")?
        .query_row([user_id], |row| row.get(0))
}

/// Whether the endpoint is one of the user's subscriptions.
pub fn is_registered(conn: &Connection, user_id: i64, endpoint: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM push_subscriptions WHERE user_id = ?1 AND endpoint = ?2)",
    )?
    .query_row(params![user_id, endpoint], |row| row.get(0))
}

pub fn touch(conn: &Connection, id: i64, now: Stamp) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE push_subscriptions SET last_success_at = ?2 WHERE id = ?1",
        params![id, now],
    )?;
    Ok(())
}

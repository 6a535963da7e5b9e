//! Stock batches (a pack with its expiry date and lot) and what each dose drew from them.
//! Callers find the medication (scoped by user) first; these functions take its id.

use chrono::NaiveDate;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{day_at, stamp_at};
use crate::db::Stamp;
use crate::domain::quantity::Quantity;

/// One batch of a medication's stock.
#[derive(Debug, Clone)]
pub struct Batch {
    pub id: i64,
    pub medication_id: i64,
    /// What the batch held when entered.
    pub quantity: Quantity,
    /// What is left of it.
    pub remaining: Quantity,
    /// The last day it may be used.
    pub expires_on: NaiveDate,
    pub lot: Option<String>,
    /// Past its expiry: no longer counted in the medication's stock.
    pub expired: bool,
    pub created_at: Stamp,
    pub updated_at: Stamp,
}

/// A new batch, or a batch's changed fields.
#[derive(Debug, Clone)]
pub struct BatchFields {
    pub quantity: Quantity,
    pub remaining: Quantity,
    pub expires_on: NaiveDate,
    pub lot: Option<String>,
    pub expired: bool,
}

const COLUMNS: &str =
    "id, medication_id, quantity, remaining, expires_on, lot, expired, created_at, updated_at";

/// `COLUMNS` of the table named `alias` in a join, in the same order.
fn columns_of(alias: &str) -> String {
    COLUMNS
        .split(", ")
        .map(|c| format!("{alias}.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn from_row(row: &Row) -> rusqlite::Result<Batch> {
    let id = row.get(0)?;
    Ok(Batch {
        id,
        medication_id: row.get(1)?,
        quantity: row.get(2)?,
        remaining: row.get(3)?,
        expires_on: day_at(row, 4, "stock_batches", id)?,
        lot: row.get(5)?,
        expired: row.get(6)?,
        created_at: stamp_at(row, 7, "stock_batches", id)?,
        updated_at: stamp_at(row, 8, "stock_batches", id)?,
    })
}

fn day(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

/// A medication's batches, the first to expire first.
pub fn list(conn: &Connection, medication_id: i64) -> rusqlite::Result<Vec<Batch>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM stock_batches WHERE medication_id = ?1 ORDER BY expires_on, id"
    ))?
    .query_map([medication_id], from_row)?
    .collect()
}

/// The batches of all the user's medications, the first to expire first: one query for a list.
pub fn of_user(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<Batch>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM stock_batches WHERE medication_id IN
           (SELECT id FROM medications WHERE user_id = ?1) ORDER BY expires_on, id"
    ))?
    .query_map([user_id], from_row)?
    .collect()
}

/// Whether the medication's stock is kept in batches.
pub fn any(conn: &Connection, medication_id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM stock_batches WHERE medication_id = ?1)")?
        .query_row([medication_id], |row| row.get(0))
}

/// The batch `id` of the medication, if it is one of its batches.
pub fn find(conn: &Connection, medication_id: i64, id: i64) -> rusqlite::Result<Option<Batch>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM stock_batches WHERE medication_id = ?1 AND id = ?2"
    ))?
    .query_row([medication_id, id], from_row)
    .optional()
}

pub fn insert(conn: &Connection, medication_id: i64, b: &BatchFields, now: Stamp) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO stock_batches (medication_id, quantity, remaining, expires_on, lot, expired, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) RETURNING id",
    )?
    .query_row(
        params![medication_id, b.quantity, b.remaining, day(b.expires_on), b.lot, b.expired, now],
        |row| row.get(0),
    )
}

pub fn update(conn: &Connection, id: i64, b: &BatchFields, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE stock_batches SET quantity = ?2, remaining = ?3, expires_on = ?4, lot = ?5, expired = ?6,
           updated_at = ?7 WHERE id = ?1",
    )?
    .execute(params![
        id,
        b.quantity,
        b.remaining,
        day(b.expires_on),
        b.lot,
        b.expired,
        now
    ])?;
    Ok(())
}

/// Moves what is left of a batch by `change` (a dose's draw or its return).
pub fn move_remaining(conn: &Connection, id: i64, change: Quantity, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE stock_batches SET remaining = remaining + ?2, updated_at = ?3 WHERE id = ?1",
    )?
    .execute(params![id, change, now])?;
    Ok(())
}

pub fn set_expired(conn: &Connection, id: i64, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE stock_batches SET expired = 1, updated_at = ?2 WHERE id = ?1")?
        .execute(params![id, now])?;
    Ok(())
}

pub fn delete(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM stock_batches WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// Batches still counted whose expiry is before `before`, with their owner: the candidates of
/// the expiry pass (which checks each against its owner's day), grouped by owner.
pub fn counted_expiring_before(conn: &Connection, before: NaiveDate) -> rusqlite::Result<Vec<(i64, Batch)>> {
    conn.prepare_cached(&format!(
        "SELECT {}, m.user_id FROM stock_batches b JOIN medications m ON m.id = b.medication_id
         WHERE b.expired = 0 AND b.expires_on < ?1 ORDER BY m.user_id, b.id",
        columns_of("b")
    ))?
    .query_map([day(before)], |row| Ok((row.get(9)?, from_row(row)?)))?
    .collect()
}

/// A batch that may need an expiry notice, with its owner and what was said of it already
/// (for its current expiry date).
pub struct NoticeCandidate {
    pub user_id: i64,
    pub batch: Batch,
    /// Announced as expiring soon.
    pub warned: bool,
    /// Announced as expired.
    pub told_expired: bool,
}

/// Batches that still hold something and may need an expiry notice: expiring before `before`
/// and not yet announced as expiring soon for their expiry date, or expiring before
/// `expired_before` and not yet announced as expired. By owner.
pub fn awaiting_notice(
    conn: &Connection,
    before: NaiveDate,
    expired_before: NaiveDate,
) -> rusqlite::Result<Vec<NoticeCandidate>> {
    conn.prepare_cached(&format!(
        "SELECT {}, m.user_id, b.expiry_noticed_for IS b.expires_on, b.expired_noticed_for IS b.expires_on
         FROM stock_batches b JOIN medications m ON m.id = b.medication_id
         WHERE b.remaining > 0 AND b.expires_on < ?1
           AND (b.expiry_noticed_for IS NOT b.expires_on
                OR (b.expires_on < ?2 AND b.expired_noticed_for IS NOT b.expires_on))
         ORDER BY m.user_id, b.id",
        columns_of("b")
    ))?
    .query_map([day(before), day(expired_before)], |row| {
        Ok(NoticeCandidate {
            batch: from_row(row)?,
            user_id: row.get(9)?,
            warned: row.get(10)?,
            told_expired: row.get(11)?,
        })
    })?
    .collect()
}

/// The batch was announced as expiring soon (and, when `expired`, as expired) for its
/// expiry date `expires_on`.
pub fn set_noticed(conn: &Connection, id: i64, expires_on: NaiveDate, expired: bool) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE stock_batches SET expiry_noticed_for = ?2,
                expired_noticed_for = CASE WHEN ?3 THEN ?2 ELSE expired_noticed_for END
         WHERE id = ?1",
    )?
    .execute(params![id, day(expires_on), expired])?;
    Ok(())
}

/// What a dose drew from a batch.
#[derive(Debug, Clone)]
pub struct Draw {
    pub batch_id: i64,
    pub quantity: Quantity,
}

/// What history entry `history_id` drew, from the batch that expires last to the first (the
/// order a partial return gives back in, so the earliest stays drawn).
pub fn draws(conn: &Connection, history_id: i64) -> rusqlite::Result<Vec<Draw>> {
    conn.prepare_cached(
        "SELECT d.batch_id, d.quantity FROM batch_draws d JOIN stock_batches b ON b.id = d.batch_id
         WHERE d.history_id = ?1 ORDER BY b.expires_on DESC, b.id DESC",
    )?
    .query_map([history_id], |row| {
        Ok(Draw {
            batch_id: row.get(0)?,
            quantity: row.get(1)?,
        })
    })?
    .collect()
}

/// Sets what `history_id` drew from `batch_id` to `quantity`; nothing removes the draw.
pub fn set_draw(
    conn: &Connection,
    history_id: i64,
    batch_id: i64,
    quantity: Quantity,
) -> rusqlite::Result<()> {
    if quantity <= Quantity::ZERO {
        conn.prepare_cached("DELETE FROM batch_draws WHERE history_id = ?1 AND batch_id = ?2")?
            .execute([history_id, batch_id])?;
    } else {
        conn.prepare_cached(
            "INSERT INTO batch_draws (history_id, batch_id, quantity) VALUES (?1, ?2, ?3)
             ON CONFLICT (history_id, batch_id) DO UPDATE SET quantity = excluded.quantity",
        )?
        .execute(params![history_id, batch_id, quantity])?;
    }
    Ok(())
}

/// What `history_id` drew from `batch_id` so far.
pub fn drawn(conn: &Connection, history_id: i64, batch_id: i64) -> rusqlite::Result<Quantity> {
    Ok(conn
        .prepare_cached("SELECT quantity FROM batch_draws WHERE history_id = ?1 AND batch_id = ?2")?
        .query_row([history_id, batch_id], |row| row.get(0))
        .optional()?
        .unwrap_or(Quantity::ZERO))
}

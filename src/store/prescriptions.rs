//! Medications' prescriptions: prescriber, pharmacy, expiry and refills, and the state of the
//! "order a refill" reminder.

use std::collections::HashMap;

use chrono::NaiveDate;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{day_or_null_at, stamp_at, stamp_or_null_at};
use crate::db::Stamp;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prescription {
    pub medication_id: i64,
    pub prescriber: String,
    pub pharmacy_name: String,
    pub pharmacy_phone: String,
    pub pharmacy_url: String,
    pub prescribed_on: Option<NaiveDate>,
    pub expires_on: Option<NaiveDate>,
    pub refills_authorised: Option<i64>,
    pub refills_left: Option<i64>,
    pub order_days_before: i64,
    /// When the person marked a refill ordered; cleared when stock is added.
    pub ordered_at: Option<Stamp>,
    /// The day (stock runs out, or the prescription expires) the last refill reminder was for.
    pub reminded_for: Option<NaiveDate>,
    pub updated_at: Stamp,
}

const COLUMNS: &str = "p.medication_id, p.prescriber, p.pharmacy_name, p.pharmacy_phone, p.pharmacy_url, \
                       p.prescribed_on, p.expires_on, p.refills_authorised, p.refills_left, p.order_days_before, \
                       p.ordered_at, p.reminded_for, p.updated_at";

fn from_row(row: &Row) -> rusqlite::Result<Prescription> {
    let id: i64 = row.get(0)?;
    Ok(Prescription {
        medication_id: id,
        prescriber: row.get(1)?,
        pharmacy_name: row.get(2)?,
        pharmacy_phone: row.get(3)?,
        pharmacy_url: row.get(4)?,
        prescribed_on: day_or_null_at(row, 5, "prescriptions", id)?,
        expires_on: day_or_null_at(row, 6, "prescriptions", id)?,
        refills_authorised: row.get(7)?,
        refills_left: row.get(8)?,
        order_days_before: row.get(9)?,
        ordered_at: stamp_or_null_at(row, 10, "prescriptions", id)?,
        reminded_for: day_or_null_at(row, 11, "prescriptions", id)?,
        updated_at: stamp_at(row, 12, "prescriptions", id)?,
    })
}

/// A medication's prescription, if it has one.
pub fn find(conn: &Connection, medication_id: i64) -> rusqlite::Result<Option<Prescription>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM prescriptions p WHERE p.medication_id = ?1"
    ))?
    .query_row([medication_id], from_row)
    .optional()
}

/// The prescriptions of an account's medications, by medication.
pub fn of_user(conn: &Connection, user_id: i64) -> rusqlite::Result<HashMap<i64, Prescription>> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM prescriptions p JOIN medications m ON m.id = p.medication_id WHERE m.user_id = ?1"
    ))?;
    let rows = statement.query_map([user_id], from_row)?;
    rows.map(|r| r.map(|p| (p.medication_id, p))).collect()
}

/// The prescriptions whose refill is not ordered and not reminded of since stock was last
/// added, with their medication's owner: the candidates of the refill reminder's pass.
pub fn awaiting_reminder(conn: &Connection) -> rusqlite::Result<Vec<(i64, Prescription)>> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS}, m.user_id FROM prescriptions p JOIN medications m ON m.id = p.medication_id
         WHERE p.ordered_at IS NULL AND p.reminded_for IS NULL ORDER BY m.user_id, p.medication_id"
    ))?;
    let rows = statement.query_map([], |row| Ok((row.get(13)?, from_row(row)?)))?;
    rows.collect()
}

/// A refill reminder went out for the need due on `due_on`: none again until stock is added.
pub fn set_reminded(conn: &Connection, medication_id: i64, due_on: NaiveDate) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE prescriptions SET reminded_for = ?2 WHERE medication_id = ?1")?
        .execute(params![medication_id, due_on.to_string()])?;
    Ok(())
}

/// Writes a medication's prescription (a new one, or its fields changed).
pub fn save(conn: &Connection, p: &Prescription) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO prescriptions (medication_id, prescriber, pharmacy_name, pharmacy_phone, pharmacy_url,
                                    prescribed_on, expires_on, refills_authorised, refills_left,
                                    order_days_before, ordered_at, reminded_for, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
         ON CONFLICT (medication_id) DO UPDATE SET
             prescriber = excluded.prescriber, pharmacy_name = excluded.pharmacy_name,
             pharmacy_phone = excluded.pharmacy_phone, pharmacy_url = excluded.pharmacy_url,
             prescribed_on = excluded.prescribed_on, expires_on = excluded.expires_on,
             refills_authorised = excluded.refills_authorised, refills_left = excluded.refills_left,
             order_days_before = excluded.order_days_before, ordered_at = excluded.ordered_at,
             reminded_for = excluded.reminded_for, updated_at = excluded.updated_at",
    )?
    .execute(params![
        p.medication_id,
        p.prescriber,
        p.pharmacy_name,
        p.pharmacy_phone,
        p.pharmacy_url,
        p.prescribed_on.map(|d| d.to_string()),
        p.expires_on.map(|d| d.to_string()),
        p.refills_authorised,
        p.refills_left,
        p.order_days_before,
        p.ordered_at,
        p.reminded_for.map(|d| d.to_string()),
        p.updated_at,
    ])?;
    Ok(())
}

/// Removes a medication's prescription; whether it had one.
pub fn remove(conn: &Connection, medication_id: i64) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM prescriptions WHERE medication_id = ?1")?
        .execute([medication_id])?
        > 0)
}

/// Stock was added to the medication: a refill ordered is in, and (when refills are counted)
/// one fewer is left. Whether it has a prescription.
pub fn stock_added(conn: &Connection, medication_id: i64, at: Stamp) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached(
            "UPDATE prescriptions
             SET refills_left = CASE WHEN refills_left > 0 THEN refills_left - 1 ELSE refills_left END,
                 ordered_at = NULL, reminded_for = NULL, updated_at = ?2
             WHERE medication_id = ?1",
        )?
        .execute(params![medication_id, at])?
        > 0)
}

//! Medications, their inventory and the stock ledger. Every query is scoped by user id.

use std::collections::HashMap;

use chrono::NaiveDate;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{day_at, json_at, stamp_at};
use crate::db::Stamp;

use crate::domain::escalation::Escalation;
use crate::domain::quantity::Quantity;
use crate::domain::schedule::Rules;
use crate::domain::stock::{Containers, InventoryType};
use crate::store::Count;

#[derive(Debug, Clone)]
pub struct Medication {
    pub id: i64,
    pub name: String,
    pub unit: String,
    pub frequency: String,
    pub color: String,
    pub icon: String,
    pub notes: String,
    pub default_quantity: Quantity,
    pub schedule_times: Vec<String>,
    pub schedule_weekdays: Vec<u32>,
    pub start_date: NaiveDate,
    pub rules: Rules,
    /// The person whose medicine it is (0 on a new one: the account holder's).
    pub person_id: i64,
    pub escalation: Option<Escalation>,
    pub created_at: Stamp,
    pub updated_at: Stamp,
}

const COLUMNS: &str = "id, name, unit, frequency, color, icon, notes, default_quantity, schedule_times, \
                       schedule_weekdays, start_date, created_at, updated_at, schedule_rules, person_id, escalation";

fn from_row(row: &Row) -> rusqlite::Result<Medication> {
    Ok(Medication {
        id: row.get(0)?,
        name: row.get(1)?,
        unit: row.get(2)?,
        frequency: row.get(3)?,
        color: row.get(4)?,
        icon: row.get(5)?,
        notes: row.get(6)?,
        default_quantity: row.get(7)?,
        schedule_times: json_at(row, 8, "medications", row.get(0)?)?,
        schedule_weekdays: json_at(row, 9, "medications", row.get(0)?)?,
        start_date: day_at(row, 10, "medications", row.get(0)?)?,
        created_at: stamp_at(row, 11, "medications", row.get(0)?)?,
        updated_at: stamp_at(row, 12, "medications", row.get(0)?)?,
        rules: json_at(row, 13, "medications", row.get(0)?)?,
        person_id: row.get::<_, Option<i64>>(14)?.unwrap_or_default(),
        escalation: Escalation::from_json(&row.get::<_, String>(15)?),
    })
}

pub fn list(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<Medication>> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM medications WHERE user_id = ?1 ORDER BY name COLLATE NOCASE, id"
    ))?;
    statement.query_map([user_id], from_row)?.collect()
}

/// The medications of the users with ids from `first` to `last`, with their user's id, by
/// user and then as `list` orders them: the planner reads a chunk of users at once.
pub fn for_users(conn: &Connection, first: i64, last: i64) -> rusqlite::Result<Vec<(i64, Medication)>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS}, user_id FROM medications WHERE user_id BETWEEN ?1 AND ?2
         ORDER BY user_id, name COLLATE NOCASE, id"
    ))?
    .query_map([first, last], |row| Ok((row.get(16)?, from_row(row)?)))?
    .collect()
}

/// The users who have medications, by id.
pub fn owners(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    conn.prepare("SELECT DISTINCT user_id FROM medications ORDER BY user_id")?
        .query_map([], |row| row.get(0))?
        .collect()
}

/// The account a medication belongs to, whoever asks (Home Assistant's buttons name only
/// the medication).
pub fn owner(conn: &Connection, id: i64) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT user_id FROM medications WHERE id = ?1")?
        .query_row([id], |row| row.get(0))
        .optional()
}

pub fn find(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<Option<Medication>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM medications WHERE user_id = ?1 AND id = ?2"
    ))?
    .query_row([user_id, id], from_row)
    .optional()
}

/// Inserts a medication (its `id` and timestamps are set here) and returns its id.
pub fn insert(conn: &Connection, user_id: i64, m: &Medication) -> rusqlite::Result<i64> {
    insert_as(conn, None, user_id, m)
}

/// Inserts a medication with the id `id` reserved for it (`store::imports::reserve_ids`), or
/// the next one when None; `m.id` is ignored. Returns the id.
pub fn insert_as(conn: &Connection, id: Option<i64>, user_id: i64, m: &Medication) -> rusqlite::Result<i64> {
    conn.execute(
        "INSERT INTO medications (user_id, name, unit, frequency, color, icon, notes, default_quantity,
           schedule_times, schedule_weekdays, start_date, created_at, updated_at, schedule_rules, person_id,
           escalation, id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13, nullif(?14, 0), ?15, ?16)",
        params![
            user_id,
            m.name,
            m.unit,
            m.frequency,
            m.color,
            m.icon,
            m.notes,
            m.default_quantity,
            serde_json::to_string(&m.schedule_times).unwrap_or_default(),
            serde_json::to_string(&m.schedule_weekdays).unwrap_or_default(),
            m.start_date.to_string(),
            m.created_at,
            m.rules.to_json(),
            m.person_id,
            Escalation::to_json(m.escalation.as_ref()),
            id,
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn update(conn: &Connection, user_id: i64, m: &Medication) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE medications SET name = ?3, unit = ?4, frequency = ?5, color = ?6, icon = ?7, notes = ?8,
           default_quantity = ?9, schedule_times = ?10, schedule_weekdays = ?11, start_date = ?12, updated_at = ?13,
           schedule_rules = ?14, person_id = coalesce(nullif(?15, 0), person_id), escalation = ?16
         WHERE user_id = ?1 AND id = ?2",
        params![
            user_id,
            m.id,
            m.name,
            m.unit,
            m.frequency,
            m.color,
            m.icon,
            m.notes,
            m.default_quantity,
            serde_json::to_string(&m.schedule_times).unwrap_or_default(),
            serde_json::to_string(&m.schedule_weekdays).unwrap_or_default(),
            m.start_date.to_string(),
            m.updated_at,
            m.rules.to_json(),
            m.person_id,
            Escalation::to_json(m.escalation.as_ref()),
        ],
    )?;
    Ok(())
}

/// Sets when a medication last changed (`insert` stamps it with the creation time).
pub fn set_updated_at(conn: &Connection, id: i64, updated_at: Stamp) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE medications SET updated_at = ?2 WHERE id = ?1",
        params![id, updated_at],
    )?;
    Ok(())
}

/// Deletes a medication with its inventory and ledger. Its history stays (entries keep the
/// name) unless `with_history`.
pub fn delete(conn: &Connection, user_id: i64, id: i64, with_history: bool) -> rusqlite::Result<bool> {
    if find(conn, user_id, id)?.is_none() {
        return Ok(false);
    }
    super::reminders::drop_unsent_for_medication(conn, id)?;
    if with_history {
        conn.execute(
            "DELETE FROM dose_history_rows WHERE user_id = ?1 AND medication_id = ?2",
            [user_id, id],
        )?;
    }
    Ok(conn.execute(
        "DELETE FROM medications WHERE user_id = ?1 AND id = ?2",
        [user_id, id],
    )? == 1)
}

#[derive(Debug, Clone)]
pub struct Inventory {
    pub enabled: bool,
    pub containers: Containers,
    pub current_quantity: Quantity,
    pub reminder_threshold: Quantity,
    pub updated_at: Stamp,
}

impl Inventory {
    pub fn disabled(now: Stamp) -> Inventory {
        Inventory {
            enabled: false,
            containers: Containers {
                inventory_type: InventoryType::Discrete,
                container_type: None,
                container_quantity: None,
                container_size: None,
                container_unit: None,
                item_quantity: None,
                item_strength: None,
                item_unit: None,
            },
            current_quantity: Quantity::ZERO,
            reminder_threshold: crate::domain::stock::DEFAULT_THRESHOLD,
            updated_at: now,
        }
    }
}

fn inventory_type(text: &str) -> InventoryType {
    if text == "continuous" {
        InventoryType::Continuous
    } else {
        InventoryType::Discrete
    }
}

const INVENTORY_COLUMNS: &str = "i.enabled, i.inventory_type, i.container_type, i.container_quantity, \
    i.container_size, i.container_unit, i.item_quantity, i.item_strength, i.item_unit, i.current_quantity, \
    i.reminder_threshold, i.updated_at";

/// The inventory columns from `first` on, of the medication `medication_id`.
fn inventory_from_row(row: &Row, first: usize, medication_id: i64) -> rusqlite::Result<Inventory> {
    Ok(Inventory {
        enabled: row.get(first)?,
        containers: Containers {
            inventory_type: inventory_type(&row.get::<_, String>(first + 1)?),
            container_type: row.get(first + 2)?,
            container_quantity: row.get(first + 3)?,
            container_size: row.get(first + 4)?,
            container_unit: row.get(first + 5)?,
            item_quantity: row.get(first + 6)?,
            item_strength: row.get(first + 7)?,
            item_unit: row.get(first + 8)?,
        },
        current_quantity: row.get(first + 9)?,
        reminder_threshold: row.get(first + 10)?,
        updated_at: stamp_at(row, first + 11, "inventories", medication_id)?,
    })
}

pub fn inventory(conn: &Connection, medication_id: i64) -> rusqlite::Result<Option<Inventory>> {
    conn.prepare_cached(&format!(
        "SELECT {INVENTORY_COLUMNS} FROM inventories i WHERE i.medication_id = ?1"
    ))?
    .query_row([medication_id], |row| inventory_from_row(row, 0, medication_id))
    .optional()
}

/// The inventories of all the user's medications, by medication id: one query for a list.
pub fn inventories(conn: &Connection, user_id: i64) -> rusqlite::Result<HashMap<i64, Inventory>> {
    conn.prepare_cached(&format!(
        "SELECT i.medication_id, {INVENTORY_COLUMNS} FROM medications m
         JOIN inventories i ON i.medication_id = m.id WHERE m.user_id = ?1"
    ))?
    .query_map([user_id], |row| {
        let medication_id = row.get(0)?;
        Ok((medication_id, inventory_from_row(row, 1, medication_id)?))
    })?
    .collect()
}

pub fn save_inventory(conn: &Connection, medication_id: i64, inv: &Inventory) -> rusqlite::Result<()> {
    let c = &inv.containers;
    let kind = match c.inventory_type {
        InventoryType::Continuous => "continuous",
        InventoryType::Discrete => "discrete",
    };
    conn.execute(
        "INSERT INTO inventories (medication_id, enabled, inventory_type, container_type, container_quantity,
           container_size, container_unit, item_quantity, item_strength, item_unit, current_quantity,
           reminder_threshold, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
         ON CONFLICT (medication_id) DO UPDATE SET enabled = excluded.enabled,
           inventory_type = excluded.inventory_type, container_type = excluded.container_type,
           container_quantity = excluded.container_quantity, container_size = excluded.container_size,
           container_unit = excluded.container_unit, item_quantity = excluded.item_quantity,
           item_strength = excluded.item_strength, item_unit = excluded.item_unit,
           current_quantity = excluded.current_quantity, reminder_threshold = excluded.reminder_threshold,
           updated_at = excluded.updated_at,
           low_stock_alerted = CASE WHEN excluded.current_quantity > excluded.reminder_threshold
                                    THEN 0 ELSE low_stock_alerted END",
        params![
            medication_id,
            inv.enabled,
            kind,
            c.container_type,
            c.container_quantity,
            c.container_size,
            c.container_unit,
            c.item_quantity,
            c.item_strength,
            c.item_unit,
            inv.current_quantity,
            inv.reminder_threshold,
            inv.updated_at,
        ],
    )?;
    Ok(())
}

/// The kinds of stock change the ledger records.
#[derive(Debug, Clone, Copy)]
pub enum StockChange {
    Initial,
    Dose,
    DoseReverted,
    Adjustment,
    Correction,
}

impl StockChange {
    fn as_str(self) -> &'static str {
        match self {
            StockChange::Initial => "initial",
            StockChange::Dose => "dose",
            StockChange::DoseReverted => "dose_reverted",
            StockChange::Adjustment => "adjustment",
            StockChange::Correction => "correction",
        }
    }
}

/// Moves a medication's stock by `change` and writes the ledger row, atomically with the
/// caller's transaction. A balance below zero left by older versions counts as zero, so
/// what the ledger shows next is what people saw. Returns the new balance; `None` when the
/// medication has no inventory row.
pub fn move_stock(
    conn: &Connection,
    medication_id: i64,
    change: Quantity,
    kind: StockChange,
    reason: Option<&str>,
    history_id: Option<i64>,
    now: Stamp,
) -> rusqlite::Result<Option<Quantity>> {
    move_batch_stock(conn, medication_id, change, kind, reason, history_id, None, now)
}

/// The batch a stock move came from or went to, as the ledger names it.
#[derive(Debug, Clone, Copy)]
pub struct LedgerBatch<'a> {
    pub id: i64,
    pub lot: Option<&'a str>,
}

/// `move_stock`, naming the batch the move came from or went to on the ledger row.
#[allow(clippy::too_many_arguments)]
pub fn move_batch_stock(
    conn: &Connection,
    medication_id: i64,
    change: Quantity,
    kind: StockChange,
    reason: Option<&str>,
    history_id: Option<i64>,
    batch: Option<LedgerBatch<'_>>,
    now: Stamp,
) -> rusqlite::Result<Option<Quantity>> {
    let balance: Option<Quantity> = conn
        .prepare_cached(
            "UPDATE inventories SET current_quantity = max(current_quantity, 0) + ?2, updated_at = ?3
             WHERE medication_id = ?1 RETURNING current_quantity",
        )?
        .query_row(params![medication_id, change, now], |row| row.get(0))
        .optional()?;
    if let Some(balance) = balance {
        record_batch_ledger(
            conn,
            medication_id,
            change,
            balance,
            kind,
            reason,
            history_id,
            batch,
            now,
        )?;
        watch_low_stock(conn, medication_id, change, balance, now)?;
    }
    Ok(balance)
}

/// Low-stock alerts go out once per crossing (DESIGN §4): a fall to or under the threshold
/// queues one alert; only a refill above the threshold re-arms it.
fn watch_low_stock(
    conn: &Connection,
    medication_id: i64,
    change: Quantity,
    balance: Quantity,
    now: Stamp,
) -> rusqlite::Result<()> {
    let (enabled, threshold, alerted, user_id, name): (bool, Quantity, bool, i64, String) = conn
        .prepare_cached(
            "SELECT i.enabled, i.reminder_threshold, i.low_stock_alerted, m.user_id, m.name
             FROM inventories i JOIN medications m ON m.id = i.medication_id WHERE i.medication_id = ?1",
        )?
        .query_row([medication_id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
        })?;
    if balance > threshold {
        if alerted {
            conn.execute(
                "UPDATE inventories SET low_stock_alerted = 0 WHERE medication_id = ?1",
                [medication_id],
            )?;
        }
    } else if enabled && !alerted && change < Quantity::ZERO {
        conn.execute(
            "UPDATE inventories SET low_stock_alerted = 1 WHERE medication_id = ?1",
            [medication_id],
        )?;
        super::reminders::insert_low_stock(conn, user_id, medication_id, &name, now)?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn record_ledger(
    conn: &Connection,
    medication_id: i64,
    change: Quantity,
    balance: Quantity,
    kind: StockChange,
    reason: Option<&str>,
    history_id: Option<i64>,
    now: Stamp,
) -> rusqlite::Result<()> {
    record_batch_ledger(
        conn,
        medication_id,
        change,
        balance,
        kind,
        reason,
        history_id,
        None,
        now,
    )
}

/// `record_ledger`, naming a batch.
#[allow(clippy::too_many_arguments)]
pub fn record_batch_ledger(
    conn: &Connection,
    medication_id: i64,
    change: Quantity,
    balance: Quantity,
    kind: StockChange,
    reason: Option<&str>,
    history_id: Option<i64>,
    batch: Option<LedgerBatch<'_>>,
    now: Stamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO stock_ledger (medication_id, change, balance, kind, reason, history_id, created_at,
           batch_id, lot)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        medication_id,
        change,
        balance,
        kind.as_str(),
        reason,
        history_id,
        now,
        batch.map(|b| b.id),
        batch.and_then(|b| b.lot),
    ])?;
    Ok(())
}

/// A row of the stock ledger: one move of the stock and the balance after it.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct LedgerRow {
    pub id: i64,
    pub change: Quantity,
    pub balance: Quantity,
    /// `initial`, `dose`, `dose_reverted`, `adjustment` or `correction`.
    pub kind: String,
    #[schema(required = true)]
    pub reason: Option<String>,
    #[schema(required = true)]
    pub history_id: Option<i64>,
    #[schema(value_type = String)]
    pub created_at: Stamp,
    /// The stock batch the move came from or went to; null for a medication counted without
    /// batches (or a deleted batch, whose `lot` stays).
    #[schema(required = true)]
    pub batch_id: Option<i64>,
    /// The batch's lot number as it was when the row was written.
    #[schema(required = true)]
    pub lot: Option<String>,
}

/// One page of a medication's ledger, newest first, with how many rows it has (counted up to
/// a bound past this page).
pub fn ledger(
    conn: &Connection,
    medication_id: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(Vec<LedgerRow>, Count)> {
    let cap = Count::cap(offset, limit);
    let counted = conn
        .prepare_cached(
            "SELECT count(*) FROM (SELECT 1 FROM stock_ledger WHERE medication_id = ?1 LIMIT ?2)",
        )?
        .query_row([medication_id, cap], |row| row.get(0))?;
    let rows = conn
        .prepare_cached(
            "SELECT id, change, balance, kind, reason, history_id, created_at, batch_id, lot FROM stock_ledger
             WHERE medication_id = ?1 ORDER BY id DESC LIMIT ?2 OFFSET ?3",
        )?
        .query_map([medication_id, limit, offset], |row| {
            Ok(LedgerRow {
                id: row.get(0)?,
                change: row.get(1)?,
                balance: row.get(2)?,
                kind: row.get(3)?,
                reason: row.get(4)?,
                history_id: row.get(5)?,
                created_at: stamp_at(row, 6, "stock_ledger", row.get(0)?)?,
                batch_id: row.get(7)?,
                lot: row.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((rows, Count::capped(counted, cap)))
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    /// A medication whose stored start date or schedule no longer reads (a hand-edited or
    /// damaged file) is an error that names it, not a schedule that quietly starts today, loses
    /// its times or drops its taper.
    #[test]
    fn a_damaged_schedule_is_an_error_naming_the_medication_not_an_empty_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        crate::db::migrations::migrate(&mut conn, dir.path()).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at, updated_at)
               VALUES (1, 'kim@example.org', 'x', '2026-03-02T06:00:00.000Z', '2026-03-02T06:00:00.000Z');
             INSERT INTO medications (id, user_id, name, unit, frequency, color, icon, default_quantity, start_date, schedule_times, schedule_rules,
                                      created_at, updated_at)
               VALUES (5, 1, 'Prednisolone', 'tablets', 'daily', '#3b82f6', 'pill', 1, '2026-03-01', '[\"08:00\"]',
                       '{\"steps\":[{\"days\":5,\"quantity\":4},{\"days\":5,\"quantity\":2}]}',
                       '2026-03-02T06:00:00.000Z', '2026-03-02T06:00:00.000Z');",
        )
        .unwrap();
        let read = |conn: &Connection| list(conn, 1).map_err(|e| e.to_string());
        let sound = read(&conn).unwrap();
        assert_eq!(sound[0].start_date.to_string(), "2026-03-01");
        assert_eq!(sound[0].schedule_times, ["08:00"]);
        assert_eq!(sound[0].rules.steps.len(), 2);

        for (column, damage, said) in [
            (
                "start_date",
                "'1 March'",
                "medications row 5, column start_date: \"1 March\" is not a YYYY-MM-DD date",
            ),
            (
                "schedule_times",
                "'08:00'",
                "medications row 5, column schedule_times: \"08:00\" is not the JSON",
            ),
            (
                "schedule_rules",
                "'{\"steps\":4'",
                "medications row 5, column schedule_rules: \"{\\\"steps\\\":4\" is not the JSON",
            ),
        ] {
            let tx = conn.unchecked_transaction().unwrap();
            tx.execute(
                &format!("UPDATE medications SET {column} = {damage} WHERE id = 5"),
                [],
            )
            .unwrap();
            let err = read(&tx).unwrap_err();
            assert!(err.contains(said), "{column}: {err}");
            tx.rollback().unwrap();
        }
    }
}

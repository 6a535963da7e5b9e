//! Dose history: the record of every dose taken, skipped or missed.

use std::collections::HashMap;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};
use serde::Serialize;

use crate::db::Stamp;
use crate::domain::dose::DoseStatus;
use crate::domain::quantity::Quantity;
use crate::store::{Count, stamp_at};

// Stored as its text; the table's CHECK allows only the three statuses.
impl rusqlite::ToSql for DoseStatus {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.as_str().into())
    }
}

impl rusqlite::types::FromSql for DoseStatus {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        value
            .as_str()?
            .parse()
            .map_err(|e| rusqlite::types::FromSqlError::Other(Box::new(e)))
    }
}

/// A history entry as stored, and as the API shows it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Entry {
    pub id: i64,
    /// None once the medication is deleted (the entry keeps its name and unit).
    #[schema(required = true)]
    pub medication_id: Option<i64>,
    pub medication_name: String,
    pub medication_unit: String,
    pub status: DoseStatus,
    /// When the dose was taken (or due), RFC 3339 UTC.
    #[schema(value_type = String)]
    pub taken: Stamp,
    pub quantity: Quantity,
    pub dosage_unit: String,
    #[schema(required = true)]
    pub dosage: Option<String>,
    pub affect_inventory: bool,
    #[serde(skip)]
    pub stock_used: Quantity,
    #[schema(required = true)]
    pub dosage_id: Option<i64>,
    #[schema(value_type = String)]
    pub created_at: Stamp,
    /// The person whose dose it is (0 on a new entry: the medication's person).
    pub person_id: i64,
    /// Who logged it; null for entries from before the care circle.
    #[schema(required = true)]
    pub logged_by: Option<LoggedBy>,
}

/// Who logged a dose: the account holder, a carer, or a take link's recipient.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct LoggedBy {
    /// Null once that account is deleted (the name stays).
    #[schema(required = true)]
    pub user_id: Option<i64>,
    pub name: String,
}

const COLUMNS: &str = "id, medication_id, medication_name, medication_unit, status, taken_at, quantity, dosage_unit, \
                       dosage, affect_inventory, stock_used, dosage_id, created_at, person_id, logged_by, logged_by_name";

fn from_row(row: &Row) -> rusqlite::Result<Entry> {
    Ok(Entry {
        id: row.get(0)?,
        medication_id: row.get(1)?,
        medication_name: row.get(2)?,
        medication_unit: row.get(3)?,
        status: row.get(4)?,
        taken: stamp_at(row, 5, "dose_history", row.get(0)?)?,
        quantity: row.get(6)?,
        dosage_unit: row.get(7)?,
        dosage: row.get(8)?,
        affect_inventory: row.get(9)?,
        stock_used: row.get(10)?,
        dosage_id: row.get(11)?,
        created_at: stamp_at(row, 12, "dose_history", row.get(0)?)?,
        person_id: row.get::<_, Option<i64>>(13)?.unwrap_or_default(),
        logged_by: row
            .get::<_, Option<String>>(15)?
            .map(|name| -> rusqlite::Result<LoggedBy> {
                Ok(LoggedBy {
                    user_id: row.get(14)?,
                    name,
                })
            })
            .transpose()?,
    })
}

/// Inserts an entry (its `id` is ignored) and returns the new id.
pub fn insert(conn: &Connection, user_id: i64, e: &Entry) -> rusqlite::Result<i64> {
    insert_for_import(conn, user_id, e, None)
}

/// Inserts an entry staged by an import (`store::imports`), unseen until the import is
/// revealed; with None, an ordinary entry. Returns the new id.
pub fn insert_for_import(
    conn: &Connection,
    user_id: i64,
    e: &Entry,
    import_id: Option<i64>,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO dose_history_rows (user_id, medication_id, medication_name, medication_unit, status, taken_at,
           quantity, dosage_unit, dosage, affect_inventory, stock_used, dosage_id, created_at, person_id, logged_by,
           logged_by_name, import_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, nullif(?14, 0), ?15, ?16, ?17)",
    )?
    .execute(params![
        user_id,
        e.medication_id,
        e.medication_name,
        e.medication_unit,
        e.status,
        e.taken,
        e.quantity,
        e.dosage_unit,
        e.dosage,
        e.affect_inventory,
        e.stock_used,
        e.dosage_id,
        e.created_at,
        e.person_id,
        e.logged_by.as_ref().and_then(|by| by.user_id),
        e.logged_by.as_ref().map(|by| &by.name),
        import_id,
    ])?;
    Ok(conn.last_insert_rowid())
}

pub fn find(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<Option<Entry>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM dose_history WHERE user_id = ?1 AND id = ?2"
    ))?
    .query_row([user_id, id], from_row)
    .optional()
}

pub fn update(conn: &Connection, user_id: i64, e: &Entry) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE dose_history_rows SET status = ?3, taken_at = ?4, quantity = ?5, dosage_unit = ?6, dosage = ?7,
           stock_used = ?8 WHERE user_id = ?1 AND id = ?2",
    )?
    .execute(params![
        user_id,
        e.id,
        e.status,
        e.taken,
        e.quantity,
        e.dosage_unit,
        e.dosage,
        e.stock_used
    ])?;
    Ok(())
}

pub fn delete(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<()> {
    // The reminder this entry answered is open again: its take link works once more.
    crate::store::reminders::reopen(conn, user_id, id)?;
    conn.execute(
        "DELETE FROM dose_history_rows WHERE user_id = ?1 AND id = ?2",
        [user_id, id],
    )?;
    Ok(())
}

/// Moves a medication's entries to the person it now belongs to.
pub fn reassign(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    person_id: i64,
) -> rusqlite::Result<usize> {
    conn.execute(
        "UPDATE dose_history_rows SET person_id = ?3 WHERE user_id = ?1 AND medication_id = ?2",
        [user_id, medication_id, person_id],
    )
}

/// Marks a medication's entries as having taken nothing from its (new) stock.
pub fn forget_stock_use(conn: &Connection, medication_id: i64) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE dose_history_rows SET stock_used = 0 WHERE medication_id = ?1",
        [medication_id],
    )?;
    Ok(())
}

/// The `n` most recent entries of a medication.
pub fn recent(conn: &Connection, user_id: i64, medication_id: i64, n: i64) -> rusqlite::Result<Vec<Entry>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM dose_history WHERE user_id = ?1 AND medication_id = ?2
         ORDER BY taken_at DESC, id DESC LIMIT ?3"
    ))?
    .query_map([user_id, medication_id, n], from_row)?
    .collect()
}

/// One of a medication's latest entries, as the medication list shows it.
#[derive(Debug, Clone)]
pub struct RecentEntry {
    pub id: i64,
    pub status: DoseStatus,
    pub taken: Stamp,
    pub quantity: Quantity,
    pub dosage_unit: String,
}

/// The `n` most recent entries of each of the user's medications, newest first, by
/// medication id: one query for a list. Each medication's entries are one range of its
/// index, from the `n`-th newest entry's time (a scalar subquery) on; entries tied at that
/// time may add a few, which are cut here.
pub fn recent_per_medication(
    conn: &Connection,
    user_id: i64,
    n: usize,
) -> rusqlite::Result<HashMap<i64, Vec<RecentEntry>>> {
    let mut recent: HashMap<i64, Vec<RecentEntry>> = HashMap::new();
    // CROSS JOIN keeps the medications outside, so the rows come in index order, unsorted.
    let mut statement = conn.prepare_cached(
        "SELECT h.medication_id, h.id, h.status, h.taken_at, h.quantity, h.dosage_unit
         FROM medications m CROSS JOIN dose_history h
           ON h.user_id = ?1 AND h.medication_id = m.id AND h.taken_at >= coalesce(
             (SELECT d.taken_at FROM dose_history d WHERE d.user_id = ?1 AND d.medication_id = m.id
              ORDER BY d.taken_at DESC, d.id DESC LIMIT 1 OFFSET ?2 - 1), '')
         WHERE m.user_id = ?1 ORDER BY m.id, h.taken_at DESC, h.id DESC",
    )?;
    let mut rows = statement.query(params![user_id, n as i64])?;
    while let Some(row) = rows.next()? {
        let entries = recent.entry(row.get(0)?).or_default();
        if entries.len() < n {
            entries.push(RecentEntry {
                id: row.get(1)?,
                status: row.get(2)?,
                taken: stamp_at(row, 3, "dose_history", row.get(1)?)?,
                quantity: row.get(4)?,
                dosage_unit: row.get(5)?,
            });
        }
    }
    Ok(recent)
}

#[derive(Debug, Default)]
pub struct Filter {
    pub status: Option<DoseStatus>,
    pub medication_id: Option<i64>,
    /// One person's entries (the account's own people, or a person cared for).
    pub person_id: Option<i64>,
    /// People of other accounts whose entries are listed too (those a carer cares for).
    pub cared_for: Vec<i64>,
    /// Only these people's entries (an API token limited to some of the account's people).
    pub only_people: Option<Vec<i64>>,
    /// Inclusive lower and exclusive upper bound, RFC 3339 UTC.
    pub from: Option<String>,
    pub until: Option<String>,
}

impl Filter {
    fn clause(&self, user_id: i64) -> (String, Vec<Value>) {
        let mut sql = String::from("user_id = ?");
        let mut values = vec![Value::Integer(user_id)];
        if !self.cared_for.is_empty() {
            let marks = vec!["?"; self.cared_for.len()].join(", ");
            sql = format!("(user_id = ? OR person_id IN ({marks}))");
            values.extend(self.cared_for.iter().map(|id| Value::Integer(*id)));
        }
        if let Some(status) = &self.status {
            sql.push_str(" AND status = ?");
            values.push(Value::Text(status.as_str().to_owned()));
        }
        if let Some(id) = self.medication_id {
            sql.push_str(" AND medication_id = ?");
            values.push(Value::Integer(id));
        }
        if let Some(id) = self.person_id {
            sql.push_str(" AND person_id = ?");
            values.push(Value::Integer(id));
        }
        if let Some(people) = &self.only_people {
            let marks = vec!["?"; people.len()].join(", ");
            sql.push_str(&format!(" AND person_id IN ({marks})"));
            values.extend(people.iter().map(|id| Value::Integer(*id)));
        }
        if let Some(from) = &self.from {
            sql.push_str(" AND taken_at >= ?");
            values.push(Value::Text(from.clone()));
        }
        if let Some(until) = &self.until {
            sql.push_str(" AND taken_at < ?");
            values.push(Value::Text(until.clone()));
        }
        (sql, values)
    }
}

/// One page of entries, newest first, with how many entries match.
pub fn page(
    conn: &Connection,
    user_id: i64,
    filter: &Filter,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(Vec<Entry>, Count)> {
    let (clause, mut values) = filter.clause(user_id);
    let count = if filter.from.is_none()
        && filter.until.is_none()
        && filter.person_id.is_none()
        && filter.cared_for.is_empty()
        && filter.only_people.is_none()
    {
        // By medication and/or status: the trigger-kept counts answer without a scan.
        Count {
            total: conn
                .prepare_cached(
                    "SELECT coalesce(sum(entries), 0) FROM history_counts
                     WHERE user_id = ?1 AND (?2 IS NULL OR medication_id = ?2) AND (?3 IS NULL OR status = ?3)",
                )?
                .query_row(params![user_id, filter.medication_id, filter.status], |row| {
                    row.get(0)
                })?,
            exact: true,
        }
    } else {
        // A date range, a person or the people cared for are counted through an index, up to
        // a bound past this page.
        let cap = Count::cap(offset, limit);
        let mut bounded = values.clone();
        bounded.push(Value::Integer(cap));
        let counted = conn
            .prepare_cached(&format!(
                "SELECT count(*) FROM (SELECT 1 FROM dose_history WHERE {clause} LIMIT ?)"
            ))?
            .query_row(params_from_iter(bounded.iter()), |row| row.get(0))?;
        Count::capped(counted, cap)
    };
    values.push(Value::Integer(limit));
    values.push(Value::Integer(offset));
    let entries = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM dose_history WHERE {clause} ORDER BY taken_at DESC, id DESC LIMIT ? OFFSET ?"
        ))?
        .query_map(params_from_iter(values.iter()), from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((entries, count))
}

/// The entries of medications still listed, logged from `from` until before `until`.
pub fn between(conn: &Connection, user_id: i64, from: &str, until: &str) -> rusqlite::Result<Vec<Entry>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM dose_history
         WHERE user_id = ?1 AND taken_at >= ?2 AND taken_at < ?3 AND medication_id IS NOT NULL
         ORDER BY taken_at, id"
    ))?
    .query_map(params![user_id, from, until], from_row)?
    .collect()
}

/// An entry as adherence counts it.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub medication_id: Option<i64>,
    pub person_id: i64,
    pub status: DoseStatus,
    pub taken: Stamp,
}

/// Every entry of an account since `from`, for adherence.
pub fn since(conn: &Connection, user_id: i64, from: &str) -> rusqlite::Result<Vec<Outcome>> {
    conn.prepare_cached(
        "SELECT medication_id, person_id, status, taken_at, id FROM dose_history WHERE user_id = ?1 AND taken_at >= ?2",
    )?
    .query_map(params![user_id, from], |row| {
        Ok(Outcome {
            medication_id: row.get(0)?,
            person_id: row.get::<_, Option<i64>>(1)?.unwrap_or_default(),
            status: row.get(2)?,
            taken: stamp_at(row, 3, "dose_history", row.get(4)?)?,
        })
    })?
    .collect()
}

/// When a person last took a dose (of any medication, still listed or not).
pub fn last_taken(conn: &Connection, user_id: i64, person_id: i64) -> rusqlite::Result<Option<Stamp>> {
    conn.prepare_cached(
        "SELECT taken_at, id FROM dose_history WHERE user_id = ?1 AND person_id = ?2 AND status = 'taken'
         ORDER BY taken_at DESC, id DESC LIMIT 1",
    )?
    .query_row(params![user_id, person_id], |row| {
        stamp_at(row, 0, "dose_history", row.get(1)?)
    })
    .optional()
}

/// The newest entry's id (0 without any): entries written later have larger ones.
pub fn newest_id(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT coalesce(max(id), 0) FROM dose_history")?
        .query_row([], |row| row.get(0))
}

/// Entries written after the one with id `after`, oldest first, at most `limit`.
pub fn written_after(conn: &Connection, after: i64, limit: i64) -> rusqlite::Result<Vec<Entry>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM dose_history WHERE id > ?1 ORDER BY id LIMIT ?2"
    ))?
    .query_map(params![after, limit], from_row)?
    .collect()
}

/// When one medication's doses were taken, from `from` up to (not including) `to`: what
/// its as-needed limits count.
pub fn taken_between(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    from: &str,
    to: &str,
) -> rusqlite::Result<Vec<chrono::DateTime<chrono::Utc>>> {
    let mut statement = conn.prepare_cached(
        "SELECT taken_at, id FROM dose_history
         WHERE user_id = ?1 AND medication_id = ?2 AND status = 'taken' AND taken_at >= ?3 AND taken_at < ?4",
    )?;
    statement
        .query_map(params![user_id, medication_id, from, to], |row| {
            Ok(stamp_at(row, 0, "dose_history", row.get(1)?)?.instant())
        })?
        .collect()
}

/// When each medication's doses were taken from `from` up to (not including) `to`, in one
/// query.
pub fn taken_by_medication(
    conn: &Connection,
    user_id: i64,
    from: &str,
    to: &str,
) -> rusqlite::Result<HashMap<i64, Vec<chrono::DateTime<chrono::Utc>>>> {
    let mut statement = conn.prepare_cached(
        "SELECT medication_id, taken_at, id FROM dose_history
         WHERE user_id = ?1 AND status = 'taken' AND taken_at >= ?2 AND taken_at < ?3
           AND medication_id IS NOT NULL",
    )?;
    let mut taken: HashMap<i64, Vec<chrono::DateTime<chrono::Utc>>> = HashMap::new();
    let mut rows = statement.query(params![user_id, from, to])?;
    while let Some(row) = rows.next()? {
        let at = stamp_at(row, 1, "dose_history", row.get(2)?)?;
        taken.entry(row.get(0)?).or_default().push(at.instant());
    }
    Ok(taken)
}

/// How many of an account's entries were taken before `cutoff`: what a retention period
/// would delete.
pub fn count_taken_before(conn: &Connection, user_id: i64, cutoff: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT count(*) FROM dose_history WHERE user_id = ?1 AND taken_at < ?2")?
        .query_row(params![user_id, cutoff], |row| row.get(0))
}

/// Deletes an account's entries taken before `cutoff`; answers how many went.
pub fn delete_taken_before(conn: &Connection, user_id: i64, cutoff: &str) -> rusqlite::Result<usize> {
    conn.execute(
        "DELETE FROM dose_history_rows WHERE user_id = ?1 AND taken_at < ?2",
        params![user_id, cutoff],
    )
}

/// How many of an account's entries of one medication (none once deleted) had one status.
#[derive(Debug, Clone)]
pub struct StatusCount {
    pub medication_id: Option<i64>,
    pub status: String,
    pub count: u32,
}

/// An account's entries from `start` until before `end`, counted by medication and status:
/// a report over years of a long history reads a few rows, not all.
pub fn status_counts_between(
    conn: &Connection,
    user_id: i64,
    start: &str,
    end: &str,
) -> rusqlite::Result<Vec<StatusCount>> {
    // Through the time index: for the GROUP BY, SQLite would rather walk the whole history
    // in the (medication, status) index and filter the period row by row.
    // A view takes no INDEXED BY: the rows themselves, with the view's condition (what an
    // import still writing has staged is not seen; migration 0018).
    conn.prepare_cached(
        "SELECT medication_id, status, count(*) FROM dose_history_rows INDEXED BY dose_history_user_time
         WHERE user_id = ?1 AND taken_at >= ?2 AND taken_at < ?3
           AND (import_id IS NULL OR import_id NOT IN (SELECT id FROM imports_pending))
         GROUP BY medication_id, status",
    )?
    .query_map(params![user_id, start, end], |row| {
        Ok(StatusCount {
            medication_id: row.get(0)?,
            status: row.get(1)?,
            count: row.get(2)?,
        })
    })?
    .collect()
}

/// A dose that was missed: logged as missed, or a dose reminder nobody answered.
#[derive(Debug, Clone)]
pub struct MissedDose {
    pub medication_name: String,
    /// When it was due.
    pub time: Stamp,
    /// True when entered as missed, false for an unanswered reminder.
    pub logged: bool,
}

/// An account's missed doses from `start` until before `end` (unanswered reminders only when
/// due before `now`), by time, at most `limit`: the history's entries logged as missed and
/// the dose reminders nobody answered, which are in `reminders`.
pub fn missed_between(
    conn: &Connection,
    user_id: i64,
    start: &str,
    end: &str,
    now: Stamp,
    limit: i64,
) -> rusqlite::Result<Vec<MissedDose>> {
    conn.prepare_cached(
        "SELECT medication_name, taken_at, 'logged', id FROM dose_history
           WHERE user_id = ?1 AND status = 'missed' AND taken_at >= ?2 AND taken_at < ?3
         UNION ALL
         SELECT medication_name, scheduled_time, 'unanswered', id FROM reminders
           WHERE user_id = ?1 AND kind = 'dose' AND answered_at IS NULL AND status <> 'cancelled'
             AND scheduled_time >= ?2 AND scheduled_time < ?3 AND scheduled_time < ?4
         ORDER BY 2 LIMIT ?5",
    )?
    .query_map(params![user_id, start, end, now, limit], |row| {
        let logged = row.get::<_, String>(2)? == "logged";
        let table = if logged { "dose_history" } else { "reminders" };
        Ok(MissedDose {
            medication_name: row.get(0)?,
            time: stamp_at(row, 1, table, row.get(3)?)?,
            logged,
        })
    })?
    .collect()
}

/// A medication deleted with its history kept, as that history names it.
#[derive(Debug, Clone)]
pub struct DeletedMedication {
    pub name: String,
    pub unit: String,
    /// When its first and last entries were taken.
    pub first_taken: String,
    pub last_taken: String,
}

/// The medications an account deleted while keeping their history: one per (name, unit)
/// among the entries without a medication, by name and unit.
pub fn deleted_medications(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<DeletedMedication>> {
    conn.prepare(
        "SELECT medication_name, medication_unit, min(taken_at), max(taken_at) FROM dose_history
         WHERE user_id = ?1 AND medication_id IS NULL
         GROUP BY medication_name, medication_unit ORDER BY medication_name, medication_unit",
    )?
    .query_map([user_id], |row| {
        Ok(DeletedMedication {
            name: row.get(0)?,
            unit: row.get(1)?,
            first_taken: row.get(2)?,
            last_taken: row.get(3)?,
        })
    })?
    .collect()
}

/// A history entry as the export file writes it.
#[derive(Debug, Clone)]
pub struct ExportedEntry {
    pub id: i64,
    /// None once the medication is deleted.
    pub medication_id: Option<i64>,
    pub medication_name: String,
    pub medication_unit: String,
    pub quantity: Quantity,
    pub dosage_unit: String,
    pub status: String,
    pub taken: Stamp,
    pub dosage: Option<String>,
    pub affect_inventory: bool,
    pub person_id: Option<i64>,
    pub logged_by_name: Option<String>,
}

/// Hands `each` every entry of an account, oldest first, one row at a time: a history of
/// years is never held in memory. Stops at the first error `each` answers.
pub fn for_each_exported<E: From<rusqlite::Error>>(
    conn: &Connection,
    user_id: i64,
    mut each: impl FnMut(ExportedEntry) -> Result<(), E>,
) -> Result<(), E> {
    let mut statement = conn.prepare(
        "SELECT id, medication_id, medication_name, medication_unit, quantity, dosage_unit, status, taken_at,
                dosage, affect_inventory, person_id, logged_by_name
         FROM dose_history WHERE user_id = ?1 ORDER BY taken_at, id",
    )?;
    let mut rows = statement.query([user_id])?;
    while let Some(row) = rows.next()? {
        each(ExportedEntry {
            id: row.get(0)?,
            medication_id: row.get(1)?,
            medication_name: row.get(2)?,
            medication_unit: row.get(3)?,
            quantity: row.get(4)?,
            dosage_unit: row.get(5)?,
            status: row.get(6)?,
            taken: stamp_at(row, 7, "dose_history", row.get(0)?)?,
            dosage: row.get(8)?,
            affect_inventory: row.get(9)?,
            person_id: row.get(10)?,
            logged_by_name: row.get(11)?,
        })?;
    }
    Ok(())
}

/// The unit of a deleted medication whose history is kept under `name` (compared without
/// case), if any.
pub fn deleted_medication_unit(
    conn: &Connection,
    user_id: i64,
    name: &str,
) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        "SELECT medication_unit FROM dose_history
         WHERE user_id = ?1 AND medication_id IS NULL AND medication_name = ?2 COLLATE NOCASE LIMIT 1",
        params![user_id, name],
        |row| row.get(0),
    )
    .optional()
}

/// What an import tells one dose from another by.
#[derive(Debug, Clone)]
pub struct DoseFacts {
    pub id: i64,
    /// None once the medication is deleted (then `medication_name` tells whose it was).
    pub medication_id: Option<i64>,
    pub medication_name: String,
    pub taken: Stamp,
    pub status: String,
    pub quantity: Quantity,
    pub dosage_unit: String,
}

/// Hands `each` every entry of an account, in no particular order, one row at a time.
pub fn for_each_dose(
    conn: &Connection,
    user_id: i64,
    mut each: impl FnMut(DoseFacts),
) -> rusqlite::Result<()> {
    let mut statement = conn.prepare(
        "SELECT id, medication_id, medication_name, taken_at, status, quantity, dosage_unit
         FROM dose_history WHERE user_id = ?1",
    )?;
    let mut rows = statement.query([user_id])?;
    while let Some(row) = rows.next()? {
        each(DoseFacts {
            id: row.get(0)?,
            medication_id: row.get(1)?,
            medication_name: row.get(2)?,
            taken: stamp_at(row, 3, "dose_history", row.get(0)?)?,
            status: row.get(4)?,
            quantity: row.get(5)?,
            dosage_unit: row.get(6)?,
        });
    }
    Ok(())
}

/// Gives a kept entry of a deleted medication back to a medication, and to its person (who
/// may see an entry follows it).
pub fn attach_to_medication(
    conn: &Connection,
    user_id: i64,
    id: i64,
    medication_id: i64,
    person_id: i64,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE dose_history_rows SET medication_id = ?3, person_id = ?4 WHERE user_id = ?1 AND id = ?2",
        params![user_id, id, medication_id, person_id],
    )?;
    Ok(())
}
